// SPDX-License-Identifier: MIT
#if canImport(Glibc)
import Glibc
#endif

/// The camera queue (SPEC S16): one dedicated thread that runs camera
/// operations one at a time, in the order they were queued. Work queued
/// from any thread; `sync` from the queue's own thread runs inline, so a
/// callback on the queue may call back into the session without hanging.
final class CameraQueue: @unchecked Sendable {
    // Allocated, not stored inline: a pthread object must not move, and a
    // class's stored property passed as `&` promises no fixed address.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var items: [() -> Void] = []
    private var head = 0
    private var stopping = false
    private var thread: LibraryThread?

    init() throws(CamError) {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
        // The thread holds the queue until it ends (after shutdown()).
        thread = try LibraryThread(name: "camcore-queue") { [self] in CallbackMark.inside(self) { run() } }
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// True on the queue's thread.
    var isCurrent: Bool { CallbackMark.isInside(self) }

    private func run() {
        while true {
            pthread_mutex_lock(mutex)
            while head == items.count && !stopping { pthread_cond_wait(cond, mutex) }
            if head == items.count && stopping {
                pthread_mutex_unlock(mutex)
                return
            }
            let work = items[head]
            items[head] = {}   // drop the closure's captures now, not at compaction
            head += 1
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            pthread_mutex_unlock(mutex)
            work()
        }
    }

    /// Queues `work`; returns at once. Ignored after `shutdown()`.
    func async(_ work: @escaping () -> Void) {
        pthread_mutex_lock(mutex)
        if !stopping {
            items.append(work)
            pthread_cond_signal(cond)
        }
        pthread_mutex_unlock(mutex)
    }

    /// Runs `work` on the queue and waits for it; inline when already on it.
    /// After `shutdown()`, runs it on the caller's thread.
    func sync<T>(_ work: @escaping () -> T) -> T {
        if isCurrent { return work() }
        let slot = SyncSlot<T>()
        pthread_mutex_lock(mutex)
        let accepted = !stopping
        if accepted {
            items.append {
                let v = work()
                pthread_mutex_lock(slot.m)
                slot.value = v
                slot.done = true
                pthread_cond_signal(slot.c)
                pthread_mutex_unlock(slot.m)
            }
            pthread_cond_signal(cond)
        }
        pthread_mutex_unlock(mutex)
        if !accepted { return work() }
        pthread_mutex_lock(slot.m)
        while !slot.done { pthread_cond_wait(slot.c, slot.m) }
        pthread_mutex_unlock(slot.m)
        return slot.value!
    }

    /// Runs what is queued, then ends the thread and waits for it (unless
    /// called on the queue itself, which then ends after the current item).
    func shutdown() {
        pthread_mutex_lock(mutex)
        let wasStopping = stopping
        stopping = true
        pthread_cond_signal(cond)
        pthread_mutex_unlock(mutex)
        if !wasStopping && !isCurrent { thread?.join() }
        else if !wasStopping { thread?.detach() }
    }
}

/// The hand-over of one `sync` result between two threads.
private final class SyncSlot<T>: @unchecked Sendable {
    var value: T?
    var done = false
    let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    let c = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(m, nil); pthread_cond_init(c, nil) }
    deinit {
        pthread_cond_destroy(c); pthread_mutex_destroy(m)
        c.deallocate(); m.deallocate()
    }
}
