extension NarrowPlan {
    /// Where each record's values are among the small records' rows (`fill(columns:)`):
    /// column `c`'s at row `starts[c]` + its number in `numbers[c]`, those reading no column
    /// (-1) at row 0.
    struct PieceRows {
        let starts: [Int]
        let numbers: [RecordNumbers]

        /// The number of records.
        var count: Int { numbers.first?.count ?? 0 }

        func cursor(from record: Int) -> Cursor { Cursor(self, from: record) }

        /// Each record's rows in turn, from a record on: `next` moves to the next record. The
        /// columns' numbers come in chunks of the same records (`RecordNumbers`), read at once:
        /// moving on within one counts no references and copies nothing.
        final class Cursor {
            private let starts: UnsafeMutablePointer<Int>
            private let cursors: [RecordNumbers.Cursor]
            private let buffers: UnsafeMutablePointer<UnsafeMutablePointer<Int32>>
            /// The record's index in each buffer, and the end of those read.
            private var index = -1
            private var end = 0

            init(_ rows: PieceRows, from record: Int) {
                cursors = rows.numbers.map { RecordNumbers.Cursor($0, from: record) }
                let width = max(1, cursors.count)
                starts = .allocate(capacity: width)
                starts.initialize(repeating: 0, count: width)
                buffers = .allocate(capacity: width)
                for (column, cursor) in cursors.enumerated() {
                    starts[column] = rows.starts[column]
                    (buffers + column).initialize(to: cursor.buffer)
                }
            }

            deinit {
                starts.deallocate()
                buffers.deallocate()
            }

            @inline(__always) func next() throws {
                index += 1
                if index >= end { try refill() }
            }

            private func refill() throws {
                for cursor in cursors { try cursor.refill() }
                guard let first = cursors.first else { return }
                (index, end) = (first.index, first.end)
                guard cursors.allSatisfy({ $0.index == index && $0.end == end }) else {
                    throw JSONSQLError("the columns' numbers are not in chunks of the same records")
                }
            }

            /// The record's small record of column `column`, numbered within the column.
            @inline(__always) func number(_ column: Int) -> Int32 { buffers[column][index] }

            /// The record's row of column `column`; row 0 for -1.
            @inline(__always) func row(_ column: Int) -> Int {
                column < 0 ? 0 : starts[column] + Int(buffers[column][index])
            }
        }
    }
}
