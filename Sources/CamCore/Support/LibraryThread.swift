// SPDX-License-Identifier: MIT
internal import CV4L2
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What runs first and last on every thread camcore starts
/// (camcore_set_thread_hooks): capture and session threads, the camera
/// queue, the hot-plug monitor, control events, the portal and PipeWire
/// watchers. A language runtime attaches the thread once here instead of
/// on every callback (Python keeps one thread state per capture thread;
/// JNI's AttachCurrentThread is the same need).
///
/// One set per process. A thread takes the set installed when it starts
/// and calls that set's `stop` as the last thing it does, so a set
/// replaced later still ends the threads it began.
package struct ThreadHooks: Sendable {
    /// Runs on the new thread before anything else, with the thread's name.
    package let start: @Sendable (StaticString) -> Void
    /// Runs on the thread after everything else (no callback follows).
    package let stop: @Sendable (StaticString) -> Void

    package init(start: @escaping @Sendable (StaticString) -> Void, stop: @escaping @Sendable (StaticString) -> Void) {
        self.start = start
        self.stop = stop
    }

    private static let installed = Mutex<ThreadHooks?>(nil)

    /// Installs `hooks` for threads started from now on (nil: none).
    package static func install(_ hooks: ThreadHooks?) { installed.withLock { $0 = hooks } }

    /// The set a thread starting now runs.
    static var current: ThreadHooks? { installed.withLock { $0 } }
}

/// A joinable pthread running one closure (no Foundation, no Dispatch):
/// capture threads, the camera queue, the hot-plug monitor. The thread
/// carries `name` (PR_SET_NAME, at most 15 bytes: what `top -H`
/// and gdb show) and runs the installed ThreadHooks around the closure.
final class LibraryThread: @unchecked Sendable {
    private final class Body {
        let run: () -> Void
        let name: StaticString
        init(_ r: @escaping () -> Void, _ n: StaticString) { run = r; name = n }
    }
    private var tid = pthread_t()
    private var joined = false

    init(name: StaticString, _ body: @escaping () -> Void) throws(CamError) {
        let box = Unmanaged.passRetained(Body(body, name)).toOpaque()
        let rc = pthread_create(&tid, nil, { p in
            let b = Unmanaged<Body>.fromOpaque(p!).takeRetainedValue()
            b.name.withUTF8Buffer { n in n.withMemoryRebound(to: CChar.self) { cc_set_thread_name($0.baseAddress!) } }
            let hooks = ThreadHooks.current
            hooks?.start(b.name)
            b.run()
            hooks?.stop(b.name)
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

    /// Runs `body` on a new library thread nobody joins ("camcore-close"):
    /// the teardown a close asked for from inside one of the object's own
    /// callbacks, which waits there for that callback to return. False
    /// when no thread could be started (the body did not run).
    @discardableResult
    static func detached(_ body: @escaping () -> Void) -> Bool {
        guard let t = try? LibraryThread(name: "camcore-close", body) else { return false }
        t.detach()
        return true
    }

    /// Lets the thread end on its own (for a thread that stops itself).
    func detach() {
        guard !joined else { return }
        pthread_detach(tid)
        joined = true
    }
}

/// For the C ABI: runs `body` on a detached library thread (the rest of a
/// free asked for from inside a callback; see LibraryThread.detached).
/// False when no thread could be started.
@discardableResult
package func runDetached(_ body: @escaping () -> Void) -> Bool { LibraryThread.detached(body) }
