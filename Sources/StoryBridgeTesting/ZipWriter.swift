import CMinizip
import Foundation

/// Writes zip files with the system minizip, including the odd and hostile ones tests need:
/// `../` names, symlink entries, non-UTF-8 names, duplicates, highly compressible bombs.
package final class ZipWriter {
    /// Why a zip could not be written.
    struct WriteError: Error, CustomStringConvertible {
        package let description: String
    }

    private var handle: zipFile?
    package let path: String

    /// Creates (or truncates) the zip at `path`.
    package init(path: String) throws {
        self.path = path
        guard let opened = zipOpen64(path, APPEND_STATUS_CREATE) else {
            throw WriteError(description: "cannot create \(path)")
        }
        handle = opened
    }

    deinit {
        if let handle { zipClose(handle, nil) }
    }

    /// Adds an entry whose name is given as raw bytes.
    package func add(
        nameBytes: [UInt8], data: Data, compress: Bool = true, unixMode: UInt32 = 0o100644
    ) throws {
        try begin(nameBytes: nameBytes, compress: compress, unixMode: unixMode)
        try data.withUnsafeBytes { buffer in try write(buffer) }
        try end()
    }

    /// Adds an entry.
    package func add(_ name: String, data: Data, compress: Bool = true, unixMode: UInt32 = 0o100644) throws {
        try add(nameBytes: Array(name.utf8), data: data, compress: compress, unixMode: unixMode)
    }

    /// Adds an entry with text contents.
    package func add(_ name: String, text: String, compress: Bool = true) throws {
        try add(name, data: Data(text.utf8), compress: compress)
    }

    /// Adds a folder entry (`name/`).
    package func addFolder(_ name: String) throws {
        try add(name.hasSuffix("/") ? name : name + "/", data: Data(), compress: false, unixMode: 0o040755)
    }

    /// Adds a symbolic link entry pointing at `target`.
    package func addSymlink(_ name: String, target: String) throws {
        try add(name, data: Data(target.utf8), compress: false, unixMode: 0o120777)
    }

    /// Adds an entry of `count` bytes produced in chunks by `chunk(offset, size)`, without holding
    /// it all in memory (for large media files and bombs).
    package func add(
        _ name: String, count: Int64, compress: Bool = true, chunk: (Int64, Int) -> Data
    ) throws {
        try begin(nameBytes: Array(name.utf8), compress: compress, unixMode: 0o100644)
        var offset: Int64 = 0
        while offset < count {
            let size = Int(min(Int64(1 << 20), count - offset))
            let data = chunk(offset, size)
            try data.withUnsafeBytes { buffer in try write(buffer) }
            offset += Int64(size)
        }
        try end()
    }

    /// Finishes the zip (writes the central directory).
    package func close() throws {
        guard let handle else { return }
        self.handle = nil
        guard zipClose(handle, nil) == ZIP_OK else { throw WriteError(description: "cannot finish \(path)") }
    }

    private func begin(nameBytes: [UInt8], compress: Bool, unixMode: UInt32) throws {
        guard let handle else { throw WriteError(description: "zip already closed") }
        var info = zip_fileinfo()
        info.external_fa = uLong(unixMode) << 16
        let name = nameBytes.map { CChar(bitPattern: $0) } + [0]
        let madeByUnix: uLong = (3 << 8) | 20
        let status = zipOpenNewFileInZip4_64(
            handle, name, &info, nil, 0, nil, 0, nil, compress ? Z_DEFLATED : 0, compress ? 6 : 0, 0, -MAX_WBITS,
            DEF_MEM_LEVEL, Z_DEFAULT_STRATEGY, nil, 0, madeByUnix, 0, 1)
        guard status == ZIP_OK else { throw WriteError(description: "cannot add entry (code \(status))") }
    }

    private func write(_ buffer: UnsafeRawBufferPointer) throws {
        guard let handle else { return }
        guard buffer.count == 0 || zipWriteInFileInZip(handle, buffer.baseAddress, UInt32(buffer.count)) == ZIP_OK else {
            throw WriteError(description: "cannot write entry data")
        }
    }

    private func end() throws {
        guard let handle, zipCloseFileInZip(handle) == ZIP_OK else { throw WriteError(description: "cannot close entry") }
    }
}
