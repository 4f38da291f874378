import Foundation
import Testing

@testable import StoryBridge

/// The CRM data set of a Veeva delivery: read and checked, a fault named by its place.
@Suite("CRM data sets")
struct CRMDataSetTests {
    @Test("a malformed CRM data set is refused naming the place of the fault")
    func dataSetFaults() throws {
        #expect(throws: CRMDataSetError.notJSON(path: "d.json", line: 3, column: 15, reason: "expected ':'")) {
            try CRMDataSet.parse(Data("{\n  \"objects\": {\n    \"Account\" []\n}".utf8), path: "d.json")
        }
        #expect(throws: CRMDataSetError.invalid(path: "d.json", place: "objects.Account[1]", reason: "has no id (Id, ID or id, a string)"))
        {
            try CRMDataSet.parse(Data(#"{"objects": {"Account": [{"Id": "1"}, {"Name": "x"}]}}"#.utf8), path: "d.json")
        }
        #expect(throws: CRMDataSetError.self) {
            try CRMDataSet.parse(Data(#"{"current": {"Account": "9"}, "objects": {"Account": [{"Id": "1"}]}}"#.utf8), path: "d.json")
        }
        let set = try CRMDataSet.parse(
            Data(#"{"current": {"Account": "1"}, "objects": {"account__v": [{"id": "1"}]}}"#.utf8), path: "d.json")
        #expect(set.current == ["Account": "1"])
    }
}
