import Foundation
import GRDBSQLite

/// Chooses column types for a table created from data.
///
/// json for objects and arrays, boolean, integer, numeric for other numbers, and text. An
/// inferred type never changes what comes back: numbers with fractions (and `-0`) get numeric,
/// which keeps them as written (`7` stays `7` beside `7.5`), and timestamps stay text, because
/// converting text is for columns the user declares. A key whose values disagree gets json,
/// which holds any JSON value faithfully.
struct TypeInference {
    private enum Seen: UInt8, CaseIterable { case boolean, integer, real, text, json }

    private var order: [String] = []
    private var slots: [String: Int] = [:]
    /// Each key by its SQLite-folded spelling: column names ignore case.
    private var folded: [String: String] = [:]
    /// For each key in `order`, the kinds seen, one bit per `Seen` case.
    private var seen: [UInt8] = []
    /// Each field position's last key and its slot.
    private var hints = KeyHints()

    /// The most columns a table may have (`SQLITE_LIMIT_COLUMN`): a record with more keys is
    /// refused as soon as they are counted, before the rest of it is looked at. Unless told,
    /// the limit of a new connection, which the in-memory databases of data files have.
    var columnLimit = TypeInference.defaultColumnLimit

    static let defaultColumnLimit: Int = {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open(":memory:", &db) == SQLITE_OK else { return 2000 }
        return Int(sqlite3_limit(db, SQLITE_LIMIT_COLUMN, -1))
    }()

    /// The keys seen so far, in the order first seen.
    var keys: [String] { order }

    /// Why a record's keys cannot all become columns.
    static func tooManyColumns(limit: Int) -> JSONSQLError {
        JSONSQLError(
            "more keys than the \(limit) columns a SQLite table can have; keep such objects whole in one json column"
        )
    }

    /// The position in `keys` of `key`.
    func index(of key: String) -> Int? { slots[key] }

    /// Whether the values of key `index` so far are all integers, or all booleans (nulls aside):
    /// `.integer`, `.boolean`, nil for any other mix.
    func soleKind(_ index: Int) -> ColumnType? {
        switch seen[index] {
        case 1 << Seen.integer.rawValue: .integer
        case 1 << Seen.boolean.rawValue: .boolean
        default: nil
        }
    }

    /// For each field of the record `observe` saw last, the position of its key in `keys`.
    private(set) var fieldKeys: [Int] = []
    /// `fieldKeys` of records before, by the number of their keys (`KeyLayout`).
    private var slotsByKeys = LayoutMemo<[Int]>()

    mutating func observe(
        _ fields: [JSONField], bytes: UnsafePointer<UInt8>, keys: KeyLayout.Number = 0
    ) throws {
        // Keys seen before in the same order: the same slots.
        if !slotsByKeys.load(keys, into: &fieldKeys) {
            var scratch: [UInt8] = []
            fieldKeys.removeAll(keepingCapacity: true)
            for (position, field) in fields.enumerated() {
                let slot =
                    try hints.value(field, at: position, bytes: bytes)
                    ?? slot(field, at: position, bytes: bytes, scratch: &scratch)
                fieldKeys.append(slot)
            }
            slotsByKeys.remember(keys, fieldKeys)
        }
        // The kinds seen, in one pass over storage that no new key moves.
        seen.withUnsafeMutableBufferPointer { seen in
            fieldKeys.withUnsafeBufferPointer { slots in
                for (position, field) in fields.enumerated() {
                    if let kind = Self.classify(field, bytes: bytes) {
                        seen[slots[position]] |= 1 << kind.rawValue
                    }
                }
            }
        }
    }

    /// The slot of the key of `field`, the record's field number `position`, which the hints
    /// did not give: found by its text, or new.
    private mutating func slot(
        _ field: JSONField, at position: Int, bytes: UnsafePointer<UInt8>, scratch: inout [UInt8]
    ) throws -> Int {
        let key = try Self.key(field, bytes: bytes, scratch: &scratch)
        try SQLQuote.checkName(key, kind: "column")
        let slot: Int
        if let existing = slots[key] {
            // Swift's `==` takes two Unicode forms of one text as one key; SQLite would make
            // two columns that print alike.
            if !order[existing].utf8.elementsEqual(key.utf8) {
                throw Self.twoForms(order[existing], key)
            }
            slot = existing
        } else {
            let fold = SQLName.fold(key)
            if let other = folded[fold] {
                if !SQLName.same(other, key) { throw Self.twoForms(other, key) }
                throw JSONSQLError(
                    "keys \"\(other)\" and \"\(key)\" differ only in case, and SQLite's column names ignore case: they cannot be two columns"
                )
            }
            guard order.count < columnLimit else { throw Self.tooManyColumns(limit: columnLimit) }
            folded[fold] = key
            slot = order.count
            order.append(key)
            slots[key] = slot
            seen.append(0)
        }
        hints.remember(field, at: position, bytes: bytes, value: slot)
        return slot
    }

    /// Whether `append(later)` gives what reading on would: not when `later` has a key that
    /// differs only in case, or in Unicode form, from one seen here, which reading on reports
    /// with its line.
    func canAppend(_ later: TypeInference) -> Bool {
        // Too many keys together: reading on names the record that brings one too many.
        order.count + later.order.count(where: { slots[$0] == nil }) <= columnLimit
            && !later.order.contains { key in
                slots[key].map { !order[$0].utf8.elementsEqual(key.utf8) }
                    ?? (folded[SQLName.fold(key)] != nil)
            }
    }

    static func twoForms(_ one: String, _ other: String) -> JSONSQLError {
        JSONSQLError(
            "keys \"\(one)\" and \"\(other)\" are the same text in two Unicode forms (composed and decomposed), which SQLite's column names keep apart: write the key one way"
        )
    }

    /// Adds what `later` saw in the records after those seen here, as if this had seen them.
    mutating func append(_ later: TypeInference) {
        for (slot, key) in later.order.enumerated() {
            if let existing = slots[key] {
                seen[existing] |= later.seen[slot]
            } else {
                folded[SQLName.fold(key)] = key
                slots[key] = order.count
                order.append(key)
                seen.append(later.seen[slot])
            }
        }
    }

    private func kinds(_ slot: Int) -> Set<Seen> {
        Set(Seen.allCases.filter { seen[slot] & (1 << $0.rawValue) != 0 })
    }

    static func key(_ field: JSONField, bytes: UnsafePointer<UInt8>, scratch: inout [UInt8]) throws
        -> String
    {
        guard field.keyEscaped else {
            return String(
                decoding: UnsafeBufferPointer(
                    start: bytes + field.keyStart, count: field.keyEnd - field.keyStart),
                as: UTF8.self)
        }
        do {
            try JSONText.decodeString(bytes, field.keyStart, field.keyEnd, into: &scratch)
        } catch ScanFailure.invalid(let message) {
            throw JSONSQLError(message)
        }
        return String(decoding: scratch, as: UTF8.self)
    }

    private static func classify(_ field: JSONField, bytes: UnsafePointer<UInt8>) -> Seen? {
        switch field.kind {
        case .null: return nil
        case .trueValue, .falseValue: return .boolean
        // `-0` is a number an integer column would store as `0`; numeric keeps it as written.
        case .integer:
            return field.integer == 0 && bytes[field.start] == UInt8(ascii: "-") ? .real : .integer
        case .float: return .real
        case .bigInteger, .object, .array: return .json
        case .string: return .text
        }
    }

    /// The type for one value, used when `--alter` adds a column.
    static func type(of field: JSONField, bytes: UnsafePointer<UInt8>) -> ColumnType {
        type(for: classify(field, bytes: bytes).map { [$0] } ?? [])
    }

    /// The type inference gives a key whose values gave `type` and that also holds `field`: for
    /// a value a column typed from the first records refuses, the type to declare instead.
    ///
    ///     integer + 1.5 → numeric      integer + "x" → json      boolean + 1 → json
    static func widened(_ type: ColumnType, toHold field: JSONField, bytes: UnsafePointer<UInt8>)
        -> ColumnType
    {
        let kinds: Set<Seen> =
            switch type {
            case .boolean: [.boolean]
            case .integer: [.integer]
            case .numeric, .real: [.real]
            case .text: [.text]
            default: [.json]
            }
        return Self.type(for: kinds.union(classify(field, bytes: bytes).map { [$0] } ?? []))
    }

    private static func type(for kinds: Set<Seen>) -> ColumnType {
        switch kinds {
        case [.boolean]: .boolean
        case [.integer]: .integer
        case [.real], [.integer, .real]: .numeric
        case [.text]: .text
        default: .json
        }
    }

    func columns(for table: String, primaryKey: [String]) throws -> [ColumnSpec] {
        // SQLite has no table without columns: records of `{}` alone cannot make one.
        if order.isEmpty {
            throw JSONSQLError(
                "the records read for table '\(table)' are all empty objects ({}), and a table needs a column: there is no key to make one of"
            )
        }
        for key in primaryKey where !order.contains(key) {
            throw JSONSQLError(
                "--pk \(TerminalText.excerpt(key)): no record has the key '\(TerminalText.excerpt(key))'"
            )
        }
        return order.enumerated().map {
            ColumnSpec(name: $0.element, type: Self.type(for: kinds($0.offset)))
        }
    }
}
