import Foundation

/// The shared libraries storybridge loads: SQLite (the database) and minizip over zlib (packages).
/// Versions are asked of the libraries as loaded in this process, and the file each came from is
/// found with dladdr(3).
enum LibraryChecks {
    /// The oldest SQLite the database code is tested with (Debian 11 ships 3.34).
    static let minimumSQLite = [3, 34, 0]

    static func run() -> [DoctorCheck] {
        [sqlite(), minizip()]
    }

    static func sqlite() -> DoctorCheck {
        typealias VersionFunction = @convention(c) () -> UnsafePointer<CChar>?
        guard let symbol = dlsym(defaultHandle, "sqlite3_libversion") else {
            return DoctorCheck(
                subject: "SQLite", detail: "the library is not loaded", outcome: .failed(fix: "apt-get install libsqlite3-0"),
                required: true)
        }
        let function = unsafeBitCast(symbol, to: VersionFunction.self)
        let version = function().map { String(cString: $0) } ?? "unknown"
        let file = loadedFrom(symbol)
        let numbers = version.split(separator: ".").compactMap { Int($0) }
        guard numbers.lexicographicallyPrecedes(minimumSQLite) == false else {
            return DoctorCheck(
                subject: "SQLite", detail: "\(version) (\(file)) is older than \(minimumSQLite.map(String.init).joined(separator: "."))",
                outcome: .failed(fix: "apt-get install --only-upgrade libsqlite3-0"), required: true)
        }
        return DoctorCheck(subject: "SQLite", detail: "\(version) (\(file))", outcome: .ok, required: true)
    }

    static func minizip() -> DoctorCheck {
        typealias VersionFunction = @convention(c) () -> UnsafePointer<CChar>?
        guard let unzip = dlsym(defaultHandle, "unzOpen64") else {
            return DoctorCheck(
                subject: "minizip", detail: "the library is not loaded", outcome: .failed(fix: "apt-get install libminizip1"),
                required: true)
        }
        var detail = loadedFrom(unzip)
        if let zlib = dlsym(defaultHandle, "zlibVersion"), let version = unsafeBitCast(zlib, to: VersionFunction.self)() {
            detail += ", zlib \(String(cString: version)) (\(loadedFrom(zlib)))"
        }
        return DoctorCheck(subject: "minizip", detail: detail, outcome: .ok, required: true)
    }

    /// RTLD_DEFAULT: every library loaded in this process.
    private static var defaultHandle: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 0) }

    /// The file a loaded symbol comes from, found in this process's memory map (/proc/self/maps);
    /// its name carries the library's version (libz.so.1.2.13).
    static func loadedFrom(_ symbol: UnsafeMutableRawPointer) -> String {
        let address = UInt(bitPattern: symbol)
        // /proc files report a size of 0, so they are read to their end rather than by size.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/maps") else { return "unknown file" }
        defer { try? file.close() }
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6 else { continue }
            let range = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard range.count == 2, range[0] <= address, address < range[1] else { continue }
            return fields[5...].joined(separator: " ")
        }
        return "unknown file"
    }
}
