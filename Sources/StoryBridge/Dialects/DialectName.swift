/// The CLM platforms whose content the host runs unmodified. Each is a dialect: how a delivery is
/// recognised and read (``DeliveryRules``), the client adapter injected beside `client.js`, and the
/// host modules that answer it (docs/ARCHITECTURE.md, "Dialects").
package enum DialectName: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// StoryCLM: a package with `index.html` in its root; every root `*.html` is a slide.
    case storyclm
    /// Veeva CRM and Vault CRM CLM: one zip (folder) per key message, a shared resource.
    case veeva
    /// IQVIA OCE: one zip (folder) per sequence, slides `01_name.html`, `02_name.html`…
    case oce

    /// The name as `--dialect` takes it.
    package var description: String { rawValue }

    /// The client adapter script (under `/__storybridge/`) injected after `client.js`, if any.
    package var clientAdapter: String? {
        switch self {
        case .storyclm: return nil
        case .veeva: return "veeva.js"
        case .oce: return "oce.js"
        }
    }

    /// The host modules this dialect adds to the built-in ones (which answer StoryCLM's commands).
    func hostModules(database: StoryBridgeDatabase, clock: any HostClock) -> [any BridgeModule] {
        switch self {
        case .storyclm: return []
        case .veeva: return [VeevaModule(store: CRMStore(database: database, clock: clock))]
        case .oce:
            return [
                OceModule(records: CRMStore(database: database, clock: clock), states: OceStateStore(database: database, clock: clock))
            ]
        }
    }

    /// The delivery rules of this dialect.
    var rules: any DeliveryRules {
        switch self {
        case .storyclm: return StoryCLMDelivery()
        case .veeva: return VeevaDelivery()
        case .oce: return OceDelivery()
        }
    }
}
