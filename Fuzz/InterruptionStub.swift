/// The JSON reader fuzzer builds the reader without the library's SQLite glue: no signal ever
/// asks it to stop, so an interrupted open is simply made again.
enum Interruption {
    static var isRequested: Bool { false }
}
