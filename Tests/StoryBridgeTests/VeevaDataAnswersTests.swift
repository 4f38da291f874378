import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// What a data request is answered when the CRM data set lacks what it names (docs/DIALECTS.md
/// §6.4): the codes the Veeva libraries' own fallbacks check.
@Suite("Veeva data answers for what the data set does not have")
struct VeevaDataAnswersTests {
    /// A snapshot of a data set, read through the store as `serve` reads it.
    static func snapshot(_ json: String) async throws -> CRMMemory.Snapshot {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-crm-answers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("crm-data.json")
        try Data(json.utf8).write(to: file)
        var presentation = Presentation(id: 3, name: "deck", root: folder, slides: [], mediaFiles: [])
        presentation.dialect = .veeva
        presentation.crmDataSet = file
        return try await CRMStore(database: try temporaryDatabase(), clock: ManualHostClock()).prepare(presentation)
    }

    static let dataSet = #"""
        {"current": {"Account": "A1"},
         "objects": {"Account": [{"Id": "A1", "Name": "Dr. Ann"}, {"Id": "A2", "Name": "Dr. Bo", "Specialty_vod__c": "Cardiology"}],
                     "Product_vod__c": []}}
        """#

    @Test("an object the data set has no entry for is 1011, a field no record has 1021, a field another record has reads as \"\"")
    func objectFieldCodes() async throws {
        let snapshot = try await Self.snapshot(Self.dataSet)
        func answer(_ text: String) throws -> JSONValue {
            VeevaDataAnswers.objectField(try VeevaRequest(text), in: snapshot, currentSlide: nil)
        }
        #expect(try answer("getDataForObjectV2(Account),fieldName(Name),cb(result)") == ["success": true, "Account": ["Name": "Dr. Ann"]])
        let noObject = try answer("getDataForObjectV2(TSF_vod__c),fieldName(Name),cb(result)")
        #expect(noObject["success"] == false && noObject["code"] == 1011)
        #expect(noObject["message"] == "getDataForObjectV2: no access to TSF_vod__c")
        let noField = try answer("getDataForObjectV2(Account),fieldName(Fax),cb(result)")
        #expect(noField["code"] == 1021 && noField["message"] == "getDataForObjectV2: no access to Account.Fax")
        #expect(
            try answer("getDataForObjectV2(Account),fieldName(Specialty_vod__c),cb(result)") == [
                "success": true, "Account": ["Specialty_vod__c": ""],
            ])
        // Not a data set gap: a missing record keeps 1000, naming it.
        let noRecord = try answer("getDataForObjectV2(Account),objId(A9),fieldName(Name),cb(result)")
        #expect(noRecord["code"] == 1000 && noRecord["message"] == "getDataForObjectV2: no Account record 'A9' in the CRM data set")
    }

    @Test("a query of an object the data set has no entry for is 1011, of a field no record has 1021; an empty object answers no rows")
    func queryCodes() async throws {
        let snapshot = try await Self.snapshot(Self.dataSet)
        func answer(_ text: String) throws -> JSONValue { VeevaDataAnswers.query(try VeevaRequest(text), in: snapshot) }
        let noObject = try answer("queryObject(Call2_vod__c),fields(Id),cb(result)")
        #expect(noObject["code"] == 1011 && noObject["message"] == "queryObject: no access to Call2_vod__c")
        let noField = try answer("queryObject(Account),fields(Id,Fax),cb(result)")
        #expect(noField["code"] == 1021 && noField["message"] == "queryObject: no access to Account.Fax")
        #expect(try answer("queryObject(Account),fields(Id,Specialty_vod__c),cb(result)")["record_count"] == 2)
        #expect(
            try answer("queryObject(Product_vod__c),fields(Id),cb(result)") == ["success": true, "record_count": 0, "Product_vod__c": []])
    }

    @Test("getAppVersion's version comes from veeva.json's appVersion, else 262.2.30; a malformed one is refused naming the file")
    func appVersion() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-veeva-version-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let presentation = Presentation(id: 4, name: "deck", root: folder, slides: [], mediaFiles: [])
        #expect(try VeevaModule.appVersion(of: presentation) == "262.2.30")
        let settings = folder.appendingPathComponent("veeva.json")
        try Data(#"{"appVersion": "24.1.0"}"#.utf8).write(to: settings)
        #expect(try VeevaModule.appVersion(of: presentation) == "24.1.0")
        try Data(#"{"appVersion": 24}"#.utf8).write(to: settings)
        #expect(throws: PresentationFolderError.self) { try VeevaModule.appVersion(of: presentation) }
        do {
            _ = try VeevaModule.appVersion(of: presentation)
        } catch {
            #expect("\(error)".contains("appVersion must be a version string") && "\(error)".contains(settings.path))
        }
    }
}
