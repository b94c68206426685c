#if canImport(Glibc)
import Glibc
#endif

/// A joinable pthread running one closure (no Foundation, no Dispatch):
/// capture threads, the camera queue, the hot-plug monitor.
final class CaptureThread: @unchecked Sendable {
    private final class Body { let run: () -> Void; init(_ r: @escaping () -> Void) { run = r } }
    private var tid = pthread_t()
    private var joined = false

    init(_ body: @escaping () -> Void) throws(CamError) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let rc = pthread_create(&tid, nil, { p in
            let b = Unmanaged<Body>.fromOpaque(p!).takeRetainedValue()
            b.run()
            return nil
        }, box)
        if rc != 0 {
            Unmanaged<Body>.fromOpaque(box).release()
            throw CamError.fromErrno(rc, "pthread_create")
        }
    }

    func join() {
        guard !joined else { return }
        pthread_join(tid, nil)
        joined = true
    }

    /// Lets the thread end on its own (for a thread that stops itself).
    func detach() {
        guard !joined else { return }
        pthread_detach(tid)
        joined = true
    }
}
