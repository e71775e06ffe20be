import Foundation

/// Runs `beside` on a thread of its own while `here` runs on this one, and returns both results
/// once both are done. Whichever throws, the other has finished first, so nothing `beside` uses
/// is freed under it; `here`'s error comes first, as when the two run one after the other.
func inParallel<A, B>(_ here: () throws -> A, beside: @escaping () throws -> B) throws -> (A, B) {
    let other = WorkBeside(beside)
    Thread { [other] in other.run() }.start()
    let mine = Result { try here() }
    let theirs = other.wait()
    return (try mine.get(), try theirs.get())
}

/// Work for another thread, and its result once done.
///
/// `@unchecked Sendable` is safe because `work` is called by the other thread only, and
/// `result` is read and written only with `condition` locked.
private final class WorkBeside<T>: @unchecked Sendable {
    private let work: () throws -> T
    private let condition = NSCondition()
    private var result: Result<T, any Error>?

    init(_ work: @escaping () throws -> T) { self.work = work }

    func run() {
        let outcome = Result { try work() }
        condition.lock()
        result = outcome
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> Result<T, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result!
    }
}
