// SPDX-License-Identifier: MIT
import Synchronization
import Testing
@testable import CamCore

/// CallbackMark: the one "inside this object's callback" check behind
/// every wouldDeadlock refusal (STYLE "Threads", SPEC S16).
struct CallbackMarkTests {
    final class Owner: Sendable {}

    @Test func test_S16_mark_nests_and_unwinds() {
        let a = Owner(), b = Owner()
        #expect(!CallbackMark.isInside(a))
        let seen = CallbackMark.inside(a) { () -> [Bool] in
            let inner = CallbackMark.inside(b) { [CallbackMark.isInside(a), CallbackMark.isInside(b)] }
            return inner + [CallbackMark.isInside(a), CallbackMark.isInside(b)]
        }
        // Inside b (itself inside a) both hold; back in a only a does.
        #expect(seen == [true, true, true, false])
        #expect(!CallbackMark.isInside(a) && !CallbackMark.isInside(b))
    }

    @Test func test_S16_mark_is_per_thread() {
        let a = Owner()
        let other = Mutex<Bool?>(nil)
        let t = CallbackMark.inside(a) { () -> LibraryThread? in
            try? LibraryThread(name: "camcore-test") { other.withLock { $0 = CallbackMark.isInside(a) } }
        }
        t?.join()
        #expect(other.withLock { $0 } == false)
    }
}
