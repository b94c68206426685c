// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// "Am I inside this object's callback?": the one thread-local mark behind
/// every `wouldDeadlock` check (stop, close or free from inside one's own
/// frame, event or control callback; STYLE "Threads", SPEC S16) and the
/// camera queue's "run inline when already on it".
///
/// A thread may be inside several objects at once (a session's delivery
/// runs inside its capturer's capture loop), so the mark is a chain of
/// frames kept on the marking threads' stacks: `inside` pushes one for the
/// length of `body`, `isInside` walks the chain. No allocation, one
/// pthread_getspecific/setspecific pair per `inside`.
enum CallbackMark {
    private struct Link {
        let owner: UnsafeMutableRawPointer
        let outer: UnsafeMutableRawPointer?
    }

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// True when the calling thread is inside `inside(owner) { … }`.
    static func isInside(_ owner: AnyObject) -> Bool {
        let me = Unmanaged.passUnretained(owner).toOpaque()
        var p = pthread_getspecific(key)
        while let link = p?.assumingMemoryBound(to: Link.self).pointee {
            if link.owner == me { return true }
            p = link.outer
        }
        return false
    }

    /// Runs `body` with the calling thread marked as inside `owner`'s
    /// callbacks; the mark is removed when `body` returns.
    static func inside<R>(_ owner: AnyObject, _ body: () -> R) -> R {
        var link = Link(owner: Unmanaged.passUnretained(owner).toOpaque(), outer: pthread_getspecific(key))
        return withUnsafeMutablePointer(to: &link) { p -> R in
            pthread_setspecific(key, p)
            let result = body()
            pthread_setspecific(key, p.pointee.outer)
            return result
        }
    }
}
