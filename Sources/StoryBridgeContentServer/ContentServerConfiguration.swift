import Foundation
import StoryBridge

/// Everything a ``ContentServer`` needs: where it listens, which library it serves, who may log
/// in, token and link lifetimes, and the faults tests switch on.
package struct ContentServerConfiguration: Sendable {
    /// Address to bind; `127.0.0.1` by default.
    package var host: String
    /// Port to bind; `0` picks a free one.
    package var port: Int
    /// The storybridge data folder whose installed presentations are served.
    package var dataDirectory: DataDirectory
    /// Clients, credentials and users.
    package var accounts: ContentServerAccounts
    /// The secret tokens and links are signed with; `nil` keeps one in the data folder.
    package var signingSecret: Data?
    /// Access token lifetime (`expires_in`), in seconds.
    package var accessTokenLifetime: Int
    /// Refresh token lifetime, in seconds (one year).
    var refreshTokenLifetime: Int
    /// How long after a refresh the refresh token it replaced is still accepted, in seconds (two
    /// requests refreshing at once both get the new token). 10 by default.
    package var refreshGracePeriod: TimeInterval = 10
    /// How many failed logins a user name and a client address may have within a window before
    /// token requests for them answer 429 with `Retry-After`.
    package var loginLimits = LoginLimits()
    /// The form of the `sas` links: this server's short form, or Azure Blob Storage's SAS form
    /// (`--blob-links azure`) as the real service hands out.
    package var blobLinks = BlobLinkStyle.storybridge
    /// How long a `sas` link stays valid, in seconds.
    package var linkLifetime: Int
    /// How far past `exp` an access token is still accepted, in seconds.
    package var allowedClockSkew: TimeInterval
    /// The scheme, host and port `sas` links start with (`http://kiosk-content.lan:8095`); `nil`
    /// uses the server's own name (``host``, or the first of ``allowedHosts`` when ``host`` is
    /// every interface) and its port. Never taken from a request. Its host is one of the names
    /// the server answers to.
    package var publicBaseURL: String?
    /// Serve HTTPS with this certificate chain and private key (PEM files); links then use
    /// `https`. Plain HTTP when `nil`.
    package var tls: TLSFiles?
    /// Names the server answers to besides `127.0.0.1`, `localhost`, `[::1]` and ``host``
    /// (`*.example.lan` for sub-domains); a request whose `Host` names anything else gets 421.
    package var allowedHosts: [String] = []
    /// Misbehaviour for tests.
    package var faults: TestFaults
    /// Packages leave out the presentation's media files (`mediafiles/…`), which a client then
    /// fetches one by one from `/v1/mediafiles/{id}` and its `sas` link, as StoryCLM serves
    /// presentations whose media live outside the package. Off by default.
    package var mediaFilesOutsidePackages = false
    /// How often the server looks at the library for presentations installed since, to build
    /// their packages (also done at start-up).
    package var packageScanInterval: Duration = .seconds(1)
    /// How long a signed manifest is good for (`expires - created`), when the server signs: 30 days
    /// by default, 1 to 365 days (`--manifest-lifetime DAYS`).
    package var manifestLifetime: TimeInterval = 30 * 86_400
    /// How often the server looks for manifests with less than a third of their lifetime left, to
    /// re-sign them (also done at start-up); of ``clock``'s time.
    package var manifestResignInterval: Duration = .seconds(3600)
    /// Called after each package build (or failed build), for a progress line.
    package var onPackageBuilt: (@Sendable (PackageBuildProgress) -> Void)?
    /// Where the server reads the time: token issue and expiry, link expiry. Tests give a
    /// `ManualHostClock` (StoryBridgeTesting) and move it instead of waiting.
    package var clock: any HostClock = SystemHostClock()
    /// The fleet hub (`--fleet`, docs/design/FLEET.md §5): `/v1/fleet/connect` for kiosks and
    /// `content-server/hub.sqlite`. Off: none of it exists.
    package var fleet = false
    /// The webhooks (`webhooks` of `--config`, or `--webhook`; docs/design/FLEET.md §8): catalog
    /// events with or without ``fleet``, kiosk events with it. They need `hub.sqlite`, which they
    /// create without ``fleet`` too. Nil: none.
    package var webhooks: WebhookConfiguration?
    /// How long the webhook dispatcher scales each retry's wait by (0.8…1.2 at random); tests give 1.
    package var webhookJitter: @Sendable () -> Double = { Double.random(in: 0.8...1.2) }

    package init(
        host: String = "127.0.0.1", port: Int = 8095, dataDirectory: DataDirectory, accounts: ContentServerAccounts,
        signingSecret: Data? = nil, accessTokenLifetime: Int = 3600, refreshTokenLifetime: Int = 365 * 24 * 3600,
        linkLifetime: Int = 3600, allowedClockSkew: TimeInterval = 5, publicBaseURL: String? = nil,
        faults: TestFaults = TestFaults()
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.accounts = accounts
        self.signingSecret = signingSecret
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.linkLifetime = linkLifetime
        self.allowedClockSkew = allowedClockSkew
        self.publicBaseURL = publicBaseURL
        self.faults = faults
    }

    /// Where built packages are kept: `packages`, or `packages-without-media` with
    /// ``mediaFilesOutsidePackages`` (so the two kinds never mix).
    var packagesFolder: URL {
        stateFolder.appendingPathComponent(mediaFilesOutsidePackages ? "packages-without-media" : "packages")
    }

    /// The server's own folder inside the data folder (signing secret, built packages).
    var stateFolder: URL { dataDirectory.root.appendingPathComponent("content-server") }
}

/// The PEM files of an HTTPS server: its certificate chain (leaf first) and its private key.
package struct TLSFiles: Sendable, Hashable {
    package var certificateChain: URL
    package var privateKey: URL

    package init(certificateChain: URL, privateKey: URL) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}
