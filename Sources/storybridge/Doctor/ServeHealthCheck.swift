import AsyncHTTPClient
import Foundation
import StoryBridge

/// `doctor --url`: asks a running serve for `GET /__storybridge/health` and turns the answer into
/// checks: the overall status with each reason it gives, the last sync and the next one.
enum ServeHealthCheck {
    /// The health URL of the serve at `base` (a base URL, or the health URL itself).
    static func healthURL(_ base: String) -> String {
        if base.hasSuffix("/__storybridge/health") { return base }
        return (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/__storybridge/health"
    }

    static func run(url base: String) async -> [DoctorCheck] {
        let url = healthURL(base)
        let status: Int
        let body: JSONValue
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(15))
            status = Int(response.status.code)
            let bytes = try await response.body.collect(upTo: 1 << 20)
            body = try JSONValue.parse(Data(buffer: bytes))
        } catch {
            return [
                DoctorCheck(
                    subject: "serve", detail: "no health answer from \(url) (\(error))",
                    outcome: .failed(fix: "start it: storybridge serve (systemctl start storybridge-kiosk)"), required: true)
            ]
        }
        let problems = body["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard status == 200 else {
            let why = problems.isEmpty ? "HTTP \(status)" : problems.joined(separator: "; ")
            return [
                DoctorCheck(
                    subject: "serve", detail: "unhealthy (\(why))", outcome: .failed(fix: "see the reasons; storybridge sync --status"),
                    required: true)
            ]
        }
        var checks = [DoctorCheck(subject: "serve", detail: "healthy (\(url))", outcome: .ok, required: true)]
        if let sync = body["sync"], sync != .null {
            let last = sync["lastRunAt"]?.stringValue ?? "not yet"
            let result = sync["lastResult"]?.stringValue ?? "-"
            let next = sync["nextRunAt"]?.stringValue ?? "-"
            checks.append(
                DoctorCheck(subject: "sync", detail: "last \(last) (\(result)), next \(next)", outcome: .ok, required: false))
        }
        return checks
    }
}
