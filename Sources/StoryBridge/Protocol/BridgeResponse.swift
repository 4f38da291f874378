/// The `Status` member of a response.
public enum ResponseStatus: String, Sendable, Hashable, Codable {
    case success = "Success"
    case failure = "Failure"
}

/// The answer to one GUID-bearing request:
/// `{"GUID", "Status", "ErrorCode", "ErrorMessage", "Data"}`.
public struct BridgeResponse: Sendable, Hashable {
    /// The GUID of the request this answers.
    public var guid: String
    /// `Success` or `Failure`.
    public var status: ResponseStatus
    /// 200 on success; 400, 404 or another code on failure (see ``BridgeError``).
    public var errorCode: Int
    /// Empty on success; a sentence saying what went wrong otherwise.
    public var errorMessage: String
    /// The answer's payload. Setting it replaces whatever written form the module kept.
    public var data: JSONValue {
        get { payload.value }
        set { payload = .value(newValue) }
    }
    /// `data` as the serialiser receives it: a value, or a value the module keeps already written
    /// (copied to the wire as it is). Only the value takes part in equality.
    var payload: AnswerPayload

    /// Creates a response from its parts.
    public init(guid: String, status: ResponseStatus, errorCode: Int, errorMessage: String, data: JSONValue) {
        self.init(guid: guid, status: status, errorCode: errorCode, errorMessage: errorMessage, payload: .value(data))
    }

    /// Creates a response whose payload may already be written.
    init(guid: String, status: ResponseStatus, errorCode: Int, errorMessage: String, payload: AnswerPayload) {
        self.guid = guid
        self.status = status
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.payload = payload
    }

    /// A success answer carrying `data`.
    public static func success(guid: String, data: JSONValue) -> BridgeResponse {
        BridgeResponse(guid: guid, status: .success, errorCode: 200, errorMessage: "", data: data)
    }

    /// A failure answer derived from a bridge error.
    public static func failure(guid: String, error: BridgeError) -> BridgeResponse {
        BridgeResponse(
            guid: guid, status: .failure, errorCode: error.errorCode, errorMessage: error.message, data: error.data)
    }

    /// The response as it travels on the wire.
    public var json: JSONValue {
        .object([
            "GUID": .string(guid),
            "Status": .string(status.rawValue),
            "ErrorCode": .int(errorCode),
            "ErrorMessage": .string(errorMessage),
            "Data": data,
        ])
    }

    /// The response's wire text: the same as `json.jsonString()`, written without building `json`.
    package var jsonText: String { JSONWriter.write(self) }

    /// The UTF-8 bytes of ``jsonText``, for writing to a socket without making a `String` first.
    package var jsonBytes: [UInt8] { JSONWriter.bytes(self) }

    /// Appends the bytes of ``jsonText`` to `bytes`: a connection that answers one request after
    /// another writes each answer into the same array instead of allocating one per answer.
    func appendJSON(to bytes: inout [UInt8]) {
        JSONWriter.append(self, to: &bytes)
    }

    /// Equal when every field and the `Data` (as a value) are equal, however the data is kept.
    public static func == (lhs: BridgeResponse, rhs: BridgeResponse) -> Bool {
        lhs.guid == rhs.guid && lhs.status == rhs.status && lhs.errorCode == rhs.errorCode
            && lhs.errorMessage == rhs.errorMessage && lhs.data == rhs.data
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(guid)
        hasher.combine(status)
        hasher.combine(errorCode)
        hasher.combine(errorMessage)
        hasher.combine(data)
    }

    /// Reads a response from its wire form; `nil` when `json` is not a response.
    public init?(json: JSONValue) {
        guard let guid = json["GUID"]?.stringValue,
            let status = json["Status"]?.stringValue.flatMap(ResponseStatus.init(rawValue:)),
            let code = json["ErrorCode"]?.intValue
        else { return nil }
        self.init(
            guid: guid, status: status, errorCode: code,
            errorMessage: json["ErrorMessage"]?.stringValue ?? "", data: json["Data"] ?? .null)
    }
}
