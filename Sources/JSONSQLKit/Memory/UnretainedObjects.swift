/// Objects read on a hot path without reference counting: a retain or release is an atomic
/// instruction, which waits for every write before it to reach memory, and the loops that read
/// these write much. Holds the objects, so they live as long as this does, and hands each out
/// unretained.
struct UnretainedObjects<Object: AnyObject> {
    private(set) var objects: [Object]
    private var unretained: [Unmanaged<Object>]

    init(_ objects: [Object] = []) {
        self.objects = objects
        unretained = objects.map(Unmanaged.passUnretained)
    }

    var count: Int { objects.count }

    /// `body` with the object at `index`.
    func with<Result>(_ index: Int, _ body: (Object) throws -> Result) rethrows -> Result {
        try unretained[index]._withUnsafeGuaranteedRef(body)
    }

    mutating func append(_ object: Object) {
        objects.append(object)
        unretained.append(Unmanaged.passUnretained(object))
    }
}
