import ArgumentParser
import StoryBridgeSync

extension TransferRate: ExpressibleByArgument {
    package init?(argument: String) {
        self.init(parsing: argument)
    }

    /// `--limit-rate`'s help, shared by sync and serve.
    static let help = ArgumentHelp(
        "Download no faster than this, all packages together: bytes a second with K, M or G (binary units, as curl): 500K, 2M.",
        valueName: "rate")
}
