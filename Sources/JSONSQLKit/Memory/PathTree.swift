import Foundation

extension NarrowRecords {
    /// The keys and array elements the paths of one column lead through; `whole` where a path
    /// reads the value itself, `measured` and `kinded` where only its length or its kind. A
    /// class, so that cutting a record passes each tree on without copying it, of constants,
    /// so that reading one while cutting needs no retain of what it holds.
    final class PathTree {
        let whole: Bool
        let measured: Bool
        let kinded: Bool
        let keys: [[UInt8]]
        /// Each key between double quotes, as it is written in JSON text without an escape, and
        /// the place of its rarest byte (`RecordPrecheck.rarePlace`).
        let quotedKeys: [[UInt8]]
        let rarePlaces: [Int]
        /// Whether no key holds a character JSON may write only with an escape, or as `\/`.
        let plainKeys: Bool
        /// The tree under each of `keys`, and under each element of `indexes`.
        let children: UnretainedObjects<PathTree>
        let indexes: [Int]
        let elements: UnretainedObjects<PathTree>

        /// The tree of `paths`, each read as its `Use` says at its end.
        convenience init(_ paths: [(segments: ArraySlice<JSONPath.Segment>, use: Use)]) {
            var draft = Draft()
            for path in paths { draft.add(path.segments, use: path.use) }
            self.init(draft)
        }

        private init(_ draft: Draft) {
            (whole, measured, kinded) = (draft.whole, draft.measured, draft.kinded)
            keys = draft.keys
            quotedKeys = keys.map { [0x22] + $0 + [0x22] }
            rarePlaces = quotedKeys.map(RecordPrecheck.rarePlace)
            plainKeys =
                !keys.joined().contains {
                    $0 < 0x20 || $0 == 0x22 || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/")
                }
            children = UnretainedObjects(draft.children.map(PathTree.init))
            indexes = draft.indexes
            elements = UnretainedObjects(draft.elements.map(PathTree.init))
        }

        /// A copy that shares no storage with this tree (`NarrowRecords.forAnotherThread`).
        func copied() -> PathTree { PathTree(draft) }

        /// This tree as a draft of its own.
        private var draft: Draft {
            Draft(
                whole: whole, measured: measured, kinded: kinded, keys: keys.map { $0.map { $0 } },
                children: children.objects.map(\.draft), indexes: indexes.map { $0 },
                elements: elements.objects.map(\.draft))
        }

        /// A tree being made.
        private struct Draft {
            var whole = false
            var measured = false
            var kinded = false
            var keys: [[UInt8]] = []
            var children: [Draft] = []
            var indexes: [Int] = []
            var elements: [Draft] = []

            mutating func add(_ segments: ArraySlice<JSONPath.Segment>, use: Use) {
                guard !whole else { return }
                guard let segment = segments.first else {
                    switch use {
                    case .value:
                        (whole, measured, kinded) = (true, false, false)
                        (keys, children, indexes, elements) = ([], [], [], [])
                    case .length: measured = true
                    case .kind: kinded = true
                    }
                    return
                }
                switch segment {
                case .key(let key):
                    Self.add(
                        segments.dropFirst(), use: use, under: Array(key.utf8), of: &keys,
                        &children)
                case .index(let index):
                    Self.add(
                        segments.dropFirst(), use: use, under: index, of: &indexes, &elements)
                }
            }

            /// Adds `segments` under the child `step` leads to among `steps`, made when new.
            private static func add<Step: Equatable>(
                _ segments: ArraySlice<JSONPath.Segment>, use: Use, under step: Step,
                of steps: inout [Step], _ children: inout [Draft]
            ) {
                if let at = steps.firstIndex(of: step) {
                    children[at].add(segments, use: use)
                } else {
                    var child = Draft()
                    child.add(segments, use: use)
                    steps.append(step)
                    children.append(child)
                }
            }
        }
    }
}
