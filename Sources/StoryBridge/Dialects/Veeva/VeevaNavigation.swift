/// `gotoSlide(keyMessage[, presentation])`, `gotoSlideV2`, `nextSlide()` and `prevSlide()`: the
/// presentation's order is its slides' order (``VeevaKeyMessageOrder``), so after a jump
/// `prevSlide` goes to the slide before the one shown, not back to where the jump came from.
/// A key message is named by its media file (`KM_B.zip`, the folder, the HTML file) or by an
/// external id of its record in the CRM data set: `gotoSlideV2` passes `Vault_External_Id_vod__c`
/// (`vault_external_id__v`), looked up first; `gotoSlide` "usually" the media file name.
enum VeevaNavigation {
    /// The fields of a key-message record that name it for `gotoSlide` / `gotoSlideV2`.
    static let externalIds = ["Vault_External_Id_vod__c", "vault_external_id__v"]
    static let mediaFileNames = ["Media_File_Name_vod__c", "media_file_name__v"]

    static func goto(_ request: VeevaRequest, context: BridgeContext, store: CRMStore) async throws -> JSONValue? {
        let arguments = request.subject.split(separator: ",", maxSplits: 1).map { String($0).trimmingSpaces() }
        guard let keyMessage = arguments.first, !keyMessage.isEmpty else {
            return VeevaModule.failure(request.function, "no key message named")
        }
        var presentation = try context.currentPresentation()
        if arguments.count == 2, !arguments[1].isEmpty {
            let wanted = arguments[1]
            guard
                let other = context.library.all.first(where: {
                    $0.dialect == .veeva && ($0.name == wanted || String($0.id) == wanted || $0.root.lastPathComponent == wanted)
                })
            else { return VeevaModule.failure(request.function, "no presentation '\(wanted)' in the library") }
            presentation = other
        }
        var found = request.function == "gotoSlideV2" ? nil : VeevaDelivery.slide(forKeyMessage: keyMessage, in: presentation)
        if found == nil { found = try await slideOfKeyMessageRecord(named: keyMessage, in: presentation, store: store) }
        if found == nil { found = VeevaDelivery.slide(forKeyMessage: keyMessage, in: presentation) }
        guard let slide = found else {
            return VeevaModule.failure(request.function, "no key message '\(keyMessage)' in presentation '\(presentation.name)'")
        }
        await context.navigate(to: presentation, slide: slide, data: .emptyObject, cause: .go)
        return nil
    }

    /// The slide of the key-message record (in the CRM data set) whose external id or media file
    /// name is `name`.
    private static func slideOfKeyMessageRecord(named name: String, in presentation: Presentation, store: CRMStore) async throws
        -> String?
    {
        guard presentation.crmDataSet != nil,
            let found = try await store.prepare(presentation).records(CRMObjects.names(for: "KeyMessage"))
        else { return nil }
        for record in found.records {
            let names = (externalIds + mediaFileNames).compactMap { CRMRecord.value($0, in: record)?.stringValue }
            guard names.contains(name) else { continue }
            for field in mediaFileNames {
                if let file = CRMRecord.value(field, in: record)?.stringValue,
                    let slide = VeevaDelivery.slide(forKeyMessage: file, in: presentation)
                {
                    return slide
                }
            }
        }
        return nil
    }

    static func step(forward: Bool, context: BridgeContext) async throws -> JSONValue? {
        let presentation = try context.currentPresentation()
        let function = forward ? "nextSlide" : "prevSlide"
        guard let current = context.viewer.latestState.currentSlide,
            let index = presentation.slides.firstIndex(where: { $0.name == current })
        else { return VeevaModule.failure(function, "no key message is shown") }
        let target = forward ? index + 1 : index - 1
        guard presentation.slides.indices.contains(target) else {
            return VeevaModule.failure(function, forward ? "the last key message is shown" : "the first key message is shown")
        }
        await context.navigate(to: presentation, slide: presentation.slides[target].name, data: .emptyObject, cause: .go)
        return nil
    }
}
