/// A file whose SHA-256 is known without reading it, for as long as its facts (`lstat`: device,
/// inode, size, modification and change times) are still `facts`: hashed from the bytes an
/// unpacking wrote, or vouched for by the installed revision's verified facts
/// (docs/design/TRUST.md 2.3). Any write, link or rename moves the change time, so a file whose
/// facts differ is read and hashed again.
package struct HashedFile: Sendable, Hashable {
    /// The SHA-256 of the file's bytes, lowercase hex.
    package var sha256: String
    /// The file's facts when the hash was known to be its own.
    package var facts: FileFacts

    package init(sha256: String, facts: FileFacts) {
        self.sha256 = sha256
        self.facts = facts
    }
}
