import Foundation

/// The host side of the Veeva dialect: one command, `veeva.request`, that the client adapter
/// (`js/veeva.js`) sends for every request string a Veeva CRM or Vault CRM library builds,
/// whatever transport it took (`{"request": "getDataForObjectV2(Account),fieldName(Id),cb(result)"}`,
/// the scheme already removed and the text URI-decoded). Requests are answered in the page's
/// order (`ordered`), each exactly once: `{"callback": NAME or null, "result": OBJECT or null}`;
/// the adapter calls the global `NAME` with `result`, when it holds a function at that moment.
/// Results are the iPad app's: `{success: true, …}` or `{success: false, code: 1000, message}`
/// naming the function.
package struct VeevaModule: BridgeModule {
    package let name = "Veeva"
    let store: CRMStore

    package init(store: CRMStore) {
        self.store = store
    }

    /// The command the adapter sends.
    package static let command = "veeva.request"

    package var commands: CommandTable {
        BridgeCommand(Self.command) { request, context in
            let text = try request.string("request")
            let parsed: VeevaRequest
            do {
                parsed = try VeevaRequest(text)
            } catch {
                return ["callback": .null, "result": Self.failure("request", "cannot read the request '\(text.prefix(120))': \(error)")]
            }
            let result: JSONValue?
            do {
                result = try await answer(parsed, context: context)
            } catch let fault as CRMDataSetError {
                // The data set changed on disk into a malformed file: the page hears why, with the place.
                result = Self.failure(parsed.function, fault.description)
            }
            return ["callback": parsed.callback.map(JSONValue.string) ?? .null, "result": result ?? .null]
        }
    }

    /// The failure answer of the app for what it cannot answer.
    static func failure(_ function: String, _ message: String) -> JSONValue {
        ["success": false, "code": 1000, "message": .string("\(function): \(message)")]
    }

    private func answer(_ request: VeevaRequest, context: BridgeContext) async throws -> JSONValue? {
        let function = request.function
        switch function {
        case "gotoSlide", "gotoSlideV2":
            return try await VeevaNavigation.goto(request, context: context, store: store)
        case "nextSlide", "prevSlide":
            return try await VeevaNavigation.step(forward: function == "nextSlide", context: context)
        case "getDataForObjectV2", "getDataForObjectV3", "getDataForObject":
            return try await VeevaDataAnswers(store: store).objectField(request, context: context)
        case "queryObject":
            return try await VeevaDataAnswers(store: store).query(request, context: context)
        case "saveObjectV2":
            return try await VeevaDataAnswers(store: store).save(request, context: context)
        case "createActivityLine":
            return try await VeevaDataAnswers(store: store).save(request, context: context, object: "Multichannel_Activity_Line_vod__c")
        default:
            return Self.failure(function, "not answered by storybridge (see docs/dialects/VEEVA-IMPLEMENTATION.md)")
        }
    }
}
