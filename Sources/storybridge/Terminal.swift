import Foundation

/// Unbuffered terminal output, so lines show up at once even when stdout is a pipe.
enum Terminal {
    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func warn(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
