import CMinizip
import Foundation

/// Bytes in memory that minizip reads as if they were a file: its I/O functions (open, read,
/// tell, seek, close) over a copy of the bytes, so a zip received over the network (a delta
/// update's listing) goes through the same reader and checks as a zip on disk without being
/// written out first.
final class ZipMemorySource {
    private let bytes: UnsafeMutableRawBufferPointer
    private var position = 0

    init(_ data: Data) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 1)
        data.copyBytes(to: bytes)
    }

    deinit {
        bytes.deallocate()
    }

    /// minizip's I/O functions over these bytes; valid while this object lives.
    var functions: zlib_filefunc64_def {
        var functions = zlib_filefunc64_def()
        functions.opaque = Unmanaged.passUnretained(self).toOpaque()
        // The "file" is the source itself, whatever name minizip is given.
        functions.zopen64_file = { opaque, _, _ in opaque }
        functions.zread_file = { opaque, _, buffer, size in
            ZipMemorySource.from(opaque).read(into: buffer, count: Int(size))
        }
        functions.zwrite_file = { _, _, _, _ in 0 }
        functions.ztell64_file = { opaque, _ in ZPOS64_T(ZipMemorySource.from(opaque).position) }
        functions.zseek64_file = { opaque, _, offset, origin in
            ZipMemorySource.from(opaque).seek(to: offset, from: origin)
        }
        functions.zclose_file = { _, _ in 0 }
        functions.zerror_file = { _, _ in 0 }
        return functions
    }

    private static func from(_ opaque: UnsafeMutableRawPointer?) -> ZipMemorySource {
        Unmanaged<ZipMemorySource>.fromOpaque(opaque!).takeUnretainedValue()
    }

    private func read(into buffer: UnsafeMutableRawPointer?, count: Int) -> uLong {
        guard let buffer, position < bytes.count else { return 0 }
        let taken = min(count, bytes.count - position)
        buffer.copyMemory(from: bytes.baseAddress! + position, byteCount: taken)
        position += taken
        return uLong(taken)
    }

    /// `fseek`'s contract: 0 when the position moved, -1 when it would leave the bytes.
    private func seek(to offset: ZPOS64_T, from origin: Int32) -> Int {
        let base: Int
        switch origin {
        case ZLIB_FILEFUNC_SEEK_SET: base = 0
        case ZLIB_FILEFUNC_SEEK_CUR: base = position
        case ZLIB_FILEFUNC_SEEK_END: base = bytes.count
        default: return -1
        }
        guard offset <= ZPOS64_T(Int.max - base), base + Int(offset) <= bytes.count else { return -1 }
        position = base + Int(offset)
        return 0
    }
}
