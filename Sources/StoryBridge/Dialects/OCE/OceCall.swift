/// One `CLMPlayer` message as the OCE library posts it: `JSON.stringify({request, params})`,
/// through `webkit.messageHandlers.nativeCall` or (the library's variant) `parent.postMessage`.
/// The client adapter (`js/oce.js`) forwards it as `oce.call {request, params, transport}`.
struct OceCall: Sendable, Hashable {
    /// The function's name (`gotoSlide`, `addAction`…).
    package var request: String
    /// Its parameters as the library named them (`{sequenceId, slideName, animation}`).
    package var params: [String: JSONValue]

    package init(request: String, params: [String: JSONValue] = [:]) {
        self.request = request
        self.params = params
    }

    /// The call in `data` (`{request, params}`), or why it cannot be read.
    package init(_ data: JSONValue) throws(OceCallError) {
        guard let request = data["request"]?.stringValue, !request.isEmpty else { throw .noRequest }
        self.request = request
        switch data["params"] {
        case nil, .null?: params = [:]
        case .object(let members)?: params = members
        default: throw .paramsNotAnObject(request)
        }
    }

    /// A parameter's text: a string as it is, a number written out; `nil` for a missing, `null`
    /// or empty value (the library passes `null` for "the current sequence").
    package func text(_ name: String) -> String? {
        switch params[name] {
        case .string(let text)?: return text.isEmpty ? nil : text
        case .int(let number)?: return String(number)
        case .double(let number)?: return String(number)
        default: return nil
        }
    }
}

/// Why an `oce.call` cannot be read.
enum OceCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message has no `request` name.
    case noRequest
    /// `params` is there but not an object.
    case paramsNotAnObject(String)

    package var description: String {
        switch self {
        case .noRequest: return "the message has no 'request' (CLMPlayer posts {request, params})"
        case .paramsNotAnObject(let request): return "'\(request)': params must be an object"
        }
    }
}
