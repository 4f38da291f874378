import Foundation
import NIOCore

/// The names the host answers to in a request's `Host` header: its defence against DNS rebinding.
///
/// A page of another site whose name is made to resolve to 127.0.0.1 is same-origin with the host
/// as far as the browser knows, so neither the launch token (it can read a slide) nor the origin
/// check (its origin equals its host) stops it; only the name it uses does. By default the host
/// answers to `127.0.0.1`, `localhost`, `[::1]` and the address it is bound to, on any port; when
/// it is bound to every interface (`0.0.0.0`, `::`), also to the addresses of the machine's
/// interfaces. More names are added for LAN use (`--allowed-host`); `*.example.lan` allows the
/// sub-domains of `example.lan`.
///
/// Shared by `serve` and `content-server` (the same `--allowed-host` flag); each answers a refusal
/// in its own form (421).
package struct AllowedHostNames: Sendable, Hashable {
    /// Exact names, lower-cased, without port or brackets.
    private let names: Set<String>
    /// Domains whose sub-domains are allowed (from `*.domain` entries), with a leading dot.
    private let domainSuffixes: [String]

    /// The default names plus `extra`, for a server bound to `boundAddress`.
    package init(boundAddress: String, extra: [String] = []) {
        var names: Set<String> = ["127.0.0.1", "localhost", "::1"]
        var suffixes: [String] = []
        let bound = Self.hostName(ofAuthority: boundAddress) ?? boundAddress.lowercased()
        if bound == "0.0.0.0" || bound == "::" {
            for device in (try? System.enumerateDevices()) ?? [] {
                if let address = device.address?.ipAddress { names.insert(Self.withoutZone(address.lowercased())) }
            }
        } else {
            names.insert(bound)
        }
        for entry in extra {
            let trimmed = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if trimmed.hasPrefix("*.") {
                suffixes.append(String(trimmed.dropFirst()))
            } else if let name = Self.hostName(ofAuthority: trimmed) {
                names.insert(name)
            }
        }
        self.names = names
        self.domainSuffixes = suffixes
    }

    /// What a request's `Host` header says of it.
    package enum Verdict: Sendable, Hashable {
        /// It names this host.
        case allowed
        /// There is no `Host` header (or it is empty).
        case missing
        /// It names another host (the name, or the header as given when it is malformed).
        case foreign(String)
    }

    /// Whether a request whose `Host` header is `authority` is for this host.
    package func verdict(authority: String?) -> Verdict {
        guard let authority, !authority.isEmpty else { return .missing }
        guard let name = Self.hostName(ofAuthority: authority) else { return .foreign(authority) }
        if names.contains(name) { return .allowed }
        if domainSuffixes.contains(where: { name.hasSuffix($0) }) { return .allowed }
        return .foreign(name)
    }

    /// The lower-cased host name of an authority (`Host` header value): the port, the brackets of
    /// an IPv6 literal and a trailing dot removed; `nil` when it is malformed.
    package static func hostName(ofAuthority authority: String) -> String? {
        var text = Substring(authority.lowercased())
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })) else { return nil }
            return withoutZone(String(text[text.index(after: text.startIndex)..<close]))
        }
        if let colon = text.lastIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            // More than one colon without brackets is not a valid authority.
            guard text[..<colon].firstIndex(of: ":") == nil, port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            text = text[..<colon]
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty else { return nil }
        return String(text)
    }

    /// An IPv6 address without its zone (`fe80::1%eth0` → `fe80::1`).
    private static func withoutZone(_ address: String) -> String {
        address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address
    }
}
