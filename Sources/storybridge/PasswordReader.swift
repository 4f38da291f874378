import Foundation

/// Reads a password without it landing in shell history: from the terminal with echo off, or
/// from standard input (`--password-stdin`, first line).
enum PasswordReader {
    enum Failure: Error, CustomStringConvertible {
        case noTerminal
        case empty

        var description: String {
            switch self {
            case .noTerminal: return "no terminal to ask for the password on: pipe it with --password-stdin"
            case .empty: return "the password is empty"
            }
        }
    }

    static func fromStandardInput() throws(Failure) -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw .empty }
        return line
    }

    static func prompt(_ text: String) throws(Failure) -> String {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard tty >= 0 else { throw .noTerminal }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { throw .noTerminal }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = text.withCString { write(tty, $0, strlen($0)) }
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer {
            tcsetattr(tty, TCSAFLUSH, &saved)
            _ = write(tty, "\n", 1)
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") {
            bytes.append(byte)
        }
        let password = String(decoding: bytes, as: UTF8.self)
        guard !password.isEmpty else { throw .empty }
        return password
    }
}
