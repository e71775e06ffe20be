import Foundation
import Testing

/// jsonsql declares the part of libpq's ABI it uses itself (CLibPQ.h), so building it needs no
/// libpq headers; where libpq-fe.h is installed, the declarations must be libpq's.
@Suite struct LibPQDeclarationTests {
    static let include = CLI.packageRoot.appendingPathComponent("Sources/CLibPQ/include").path
    static let source = CLI.packageRoot.appendingPathComponent("Sources/CLibPQ/libpq.c").path
    static let libpqHeader = "/usr/include/postgresql/libpq-fe.h"

    @Test("CLibPQ compiles from its own files: no libpq header is read")
    func noLibPQHeaders() throws {
        let dependencies = try CLI.shell("cc -M -I '\(Self.include)' '\(Self.source)'")
        #expect(dependencies.status == 0, "\(dependencies.stderr)")
        #expect(dependencies.stdout.contains("CLibPQ.h"))
        #expect(!dependencies.stdout.contains("postgresql"), "\(dependencies.stdout)")
    }

    @Test(
        "every jsonsql_ function has libpq's type, and every constant and struct field its place",
        .enabled(if: FileManager.default.fileExists(atPath: libpqHeader)))
    func sameAsLibPQ() throws {
        // libpq.c's _Static_asserts compare each function with libpq-fe.h's.
        let signatures = try CLI.shell(
            "cc -fsyntax-only -Werror -DJSONSQL_LIBPQ_FE -I '\(Self.include)' '\(Self.source)'")
        #expect(signatures.status == 0, "\(signatures.stderr)")
        // The same program, built on jsonsql's declarations and on libpq's, prints the same.
        let directory = try TemporaryDirectory()
        let names = [
            "CONNECTION_OK", "CONNECTION_BAD", "CONNECTION_CHECK_STANDBY", "PGRES_EMPTY_QUERY",
            "PGRES_COMMAND_OK", "PGRES_TUPLES_OK", "PGRES_COPY_OUT", "PGRES_COPY_IN",
            "PGRES_FATAL_ERROR", "PGRES_PIPELINE_ABORTED", "PQTRANS_IDLE", "PQTRANS_INERROR",
            "PQTRANS_UNKNOWN", "sizeof(Oid)", "sizeof(ConnStatusType)", "sizeof(ExecStatusType)",
            "sizeof(PGTransactionStatusType)", "sizeof(PQconninfoOption)",
            "offsetof(PQconninfoOption, keyword)", "offsetof(PQconninfoOption, val)",
            "offsetof(PQconninfoOption, dispchar)", "offsetof(PQconninfoOption, dispsize)",
        ]
        let program =
            "#include <stddef.h>\n#include <stdio.h>\n#include \"CLibPQ.h\"\nint main(void) {\n"
            + names.map { "    printf(\"%s=%ld\\n\", \"\($0)\", (long)(\($0)));\n" }.joined()
            + "    return 0;\n}\n"
        let file = try directory.write("layout.c", program)
        var outputs: [String] = []
        for flag in ["", "-DJSONSQL_LIBPQ_FE"] {
            let binary = directory.path("layout\(outputs.count)")
            let built = try CLI.shell(
                "cc \(flag) -I '\(Self.include)' -o '\(binary)' '\(file)' && '\(binary)'")
            #expect(built.status == 0, "\(built.stderr)")
            outputs.append(built.stdout)
        }
        #expect(outputs[0].split(separator: "\n").count == names.count)
        #expect(outputs[0] == outputs[1])
    }
}
