import AsyncHTTPClient
import Foundation
import StoryBridge

/// A port on 127.0.0.1 for `serve`, and the upload collector, when one is configured.
enum NetworkChecks {
    /// Whether `port` on 127.0.0.1 can be listened on (0: whether any port can).
    static func port(_ port: Int) -> DoctorCheck {
        let subject = "port on 127.0.0.1"
        switch bind(port: port) {
        case .success(let bound):
            let detail = port == 0 ? "a free port can be had (\(bound))" : "\(port) is free"
            return DoctorCheck(subject: subject, detail: detail, outcome: .ok, required: true)
        case .failure(let problem):
            let fix =
                problem == .addressInUse
                ? "ss -ltnp 'sport = :\(port)'   (shows what holds it; or serve with --port 0 for a free one)"
                : "check the firewall and the loopback interface: ip addr show lo"
            return DoctorCheck(subject: subject, detail: "\(port): \(problem)", outcome: .failed(fix: fix), required: true)
        }
    }

    /// Binds a TCP socket to 127.0.0.1:`port` and closes it; the port it got, or why it could not.
    static func bind(port: Int) -> Result<Int, SystemProblem> {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return .failure(SystemProblem(errno: errno)) }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return .failure(SystemProblem(errno: errno)) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        return .success(Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether the collector at `endpoint` answers HTTP at all (any status counts: it is there).
    static func collector(_ settings: UploadSettings?, configSource: String) async -> DoctorCheck {
        let subject = "upload collector"
        guard let settings else {
            return DoctorCheck(
                subject: subject, detail: "none configured (--upload-endpoint, or 'upload' in --config)", outcome: .skipped,
                required: false)
        }
        var request = HTTPClientRequest(url: settings.endpoint)
        request.method = .GET
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(15))
            _ = try? await response.body.collect(upTo: 1 << 16)
            return DoctorCheck(
                subject: subject, detail: "\(settings.endpoint) answers (HTTP \(response.status.code))", outcome: .ok, required: true)
        } catch {
            return DoctorCheck(
                subject: subject,
                detail: SystemFailure("cannot reach", settings.endpoint, error: error).description,
                outcome: .failed(
                    fix: "start the collector (storybridge collector serve) or correct the endpoint in \(configSource)"),
                required: true)
        }
    }
}
