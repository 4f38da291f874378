import ArgumentParser
import Foundation
import StoryBridgeContentServer

/// `storybridge content-server hash-password`: reads a password without echo (or from standard
/// input) and prints its bcrypt hash, for a fleet admin's `passwordBcrypt` in the content
/// server's `--config` (docs/design/FLEET.md §5.4).
struct ContentServerHashPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-password",
        abstract: "Print the bcrypt hash of a password, for a user's \"passwordBcrypt\" in --config.",
        discussion: """
            The password is read from the terminal without echo, twice, or with --password-stdin from \
            the first line of standard input. Only the hash is printed ($2b$…); put it in the user's \
            "passwordBcrypt" instead of "password". Exit status 65 when the password is empty or the \
            two entries differ.
            """)

    @Flag(help: "Read the password from the first line of standard input instead of the terminal.")
    var passwordStdin = false

    @Option(help: "bcrypt's cost: 2^cost rounds, 10 to 16.")
    var cost = Int(AdminPassword.defaultCost)

    func validate() throws {
        guard (10...16).contains(cost) else { throw ValidationError("--cost must be between 10 and 16") }
    }

    func run() throws {
        let password: String
        do {
            if passwordStdin {
                password = try PasswordReader.fromStandardInput()
            } else {
                password = try PasswordReader.prompt("Password: ")
                guard try PasswordReader.prompt("The same again: ") == password else {
                    throw CommandFailure("the two passwords differ; nothing was hashed", status: 65)
                }
            }
        } catch let failure as PasswordReader.Failure {
            throw CommandFailure(failure.description, status: 65)
        }
        print(AdminPassword.hash(password, cost: UInt8(cost)))
    }
}
