import Logging

/// The debug-level log line written for every request: command, GUID, outcome and time, with the
/// request's Data only as a short preview (never a whole payload).
enum RequestLogLine {
    /// Characters of Data shown in a log line.
    static let dataPreviewLength = 200

    static func log(_ request: BridgeRequest, response: BridgeResponse?, duration: Duration, logger: Logger) {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        var metadata: Logger.Metadata = [
            "command": "\(request.command)",
            "ms": "\((milliseconds * 1000).rounded() / 1000)",
            "data": "\(preview(request.data))",
        ]
        if let guid = request.guid { metadata["guid"] = "\(guid)" }
        if let response {
            metadata["status"] = "\(response.status.rawValue)"
            metadata["code"] = "\(response.errorCode)"
            if !response.errorMessage.isEmpty { metadata["error"] = "\(preview(response.errorMessage))" }
        } else {
            metadata["status"] = "unanswered"
        }
        logger.debug("request", metadata: metadata)
    }

    static func preview(_ data: JSONValue) -> String {
        preview(data.jsonString())
    }

    static func preview(_ text: String) -> String {
        guard text.count > dataPreviewLength else { return text }
        return String(text.prefix(dataPreviewLength)) + "… (\(text.utf8.count) bytes)"
    }
}
