import Foundation

/// The host side of the Veeva dialect: one command, `veeva.request`, that the client adapter
/// (`js/veeva.js`) sends for every request string a Veeva CRM or Vault CRM library builds,
/// whatever transport it took (`{"request": "getDataForObjectV2(Account),fieldName(Id),cb(result)"}`,
/// the scheme already removed and the text URI-decoded). Requests are answered in the page's
/// order (`ordered`; data reads from memory when it holds them, ``CRMMemory``), each exactly
/// once: `{"callback": NAME or null, "result": OBJECT or null}`; the adapter calls the global
/// `NAME` with `result`, when it holds a function at that moment.
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
            } catch let fault as PresentationFolderError {
                // veeva.json changed into a malformed file (getAppVersion reads it): the same.
                result = Self.failure(parsed.function, "\(fault)")
            }
            return ["callback": parsed.callback.map(JSONValue.string) ?? .null, "result": result ?? .null]
        }
        .answeringFromMemory { [store] request, context in
            // A data read whose records are in memory (their file looked at less than a second
            // ago) is answered at once, without the page's queue; anything else goes to the handler.
            guard let text = try? request.string("request"), let parsed = try? VeevaRequest(text), Self.readsData(parsed.function),
                let presentation = try? context.currentPresentation(),
                let snapshot = store.memory.fresh(presentation.id, now: store.clock.now)
            else { return nil }
            return [
                "callback": parsed.callback.map(JSONValue.string) ?? .null, "result": Self.read(parsed, in: snapshot, context: context),
            ]
        }
    }

    /// The functions answered from the records in memory.
    static func readsData(_ function: String) -> Bool {
        ["getDataForObjectV2", "getDataForObjectV3", "getDataForObject", "queryObject"].contains(function)
    }

    /// A data read's answer from `snapshot`.
    static func read(_ request: VeevaRequest, in snapshot: CRMMemory.Snapshot, context: BridgeContext) -> JSONValue {
        request.function == "queryObject"
            ? VeevaDataAnswers.query(request, in: snapshot)
            : VeevaDataAnswers.objectField(request, in: snapshot, currentSlide: context.viewer.latestState.currentSlide)
    }

    /// The app version the presentation's `veeva.json` names, else ``VeevaSettings/defaultAppVersion``;
    /// a malformed `veeva.json` is refused, naming the place.
    static func appVersion(of presentation: Presentation) throws(PresentationFolderError) -> String {
        let file = presentation.root.appendingPathComponent(VeevaDelivery.settingsFile)
        guard FileManager.default.fileExists(atPath: file.path) else { return VeevaSettings.defaultAppVersion }
        return try VeevaSettings.read(file).appVersion ?? VeevaSettings.defaultAppVersion
    }

    /// The failure answer of the app for what it cannot answer: `code` 1000 ("the underlying
    /// API"), or 1011 / 1021 for an object / a field the data set does not have (the codes the
    /// libraries' own fallbacks check: docs/DIALECTS.md §6.4).
    static func failure(_ function: String, code: Int = 1000, _ message: String) -> JSONValue {
        ["success": false, "code": .int(code), "message": .string("\(function): \(message)")]
    }

    /// 1011: the data set has no entry for `object` (the app's "no access to" an object).
    static let noObjectAccess = 1011
    /// 1021: no record of the object has `field` (the app's "no access to" a field).
    static let noFieldAccess = 1021

    private func answer(_ request: VeevaRequest, context: BridgeContext) async throws -> JSONValue? {
        let function = request.function
        switch function {
        case "gotoSlide", "gotoSlideV2":
            return try await VeevaNavigation.goto(request, context: context, store: store)
        case "nextSlide", "prevSlide":
            return try await VeevaNavigation.step(forward: function == "nextSlide", context: context)
        case _ where Self.readsData(function):
            let snapshot = try await store.prepare(try context.currentPresentation())
            return Self.read(request, in: snapshot, context: context)
        case "saveObjectV2":
            return try await VeevaDataAnswers(store: store).save(request, context: context)
        case "getAppVersion":
            return ["success": true, "Version": .string(try Self.appVersion(of: try context.currentPresentation()))]
        case "createActivityLine":
            return try await VeevaDataAnswers(store: store).save(request, context: context, object: "Multichannel_Activity_Line_vod__c")
        default:
            context.logger.info("Veeva \(function) refused: \(VeevaRefusals.reason(for: request))")
            return Self.failure(function, VeevaRefusals.reason(for: request))
        }
    }
}
