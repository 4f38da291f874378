import Foundation
import Testing

@testable import StoryBridge

/// The request strings of Veeva CRM 4.x and Vault CRM 2024, and the WHERE grammar.
@Suite("Veeva requests")
struct VeevaRequestTests {
    @Test("request strings split into parts; the callback is callback(NAME) or the last NAME(result)")
    func parts() throws {
        let field = try VeevaRequest("vaultcrm:getDataForObjectV2(Account),fieldName(id),com_veeva_clm_getCurrentObjectField(result)")
        #expect(field.function == "getDataForObjectV2")
        #expect(field.subject == "Account")
        #expect(field.argument("fieldName") == "id")
        #expect(field.callback == "com_veeva_clm_getCurrentObjectField")

        let save = try VeevaRequest(#"saveObjectV2(Account),value({"Name":"a (b), c","IdNumber":"1"}),callback(cb_save)"#)
        #expect(save.argument("value") == #"{"Name":"a (b), c","IdNumber":"1"}"#)
        #expect(save.callback == "cb_save")
        #expect(try VeevaRequest("saveObjectV2(A),updateCurrentRecord(),value({}),callback()").callback == nil)
        #expect(try VeevaRequest("veeva:nextSlide()").callback == nil)

        let query = try VeevaRequest(
            #"queryObject(Pricing_Rule_vod__c),fields(ID,Product_vod__c),where(WHERE RecordTypeId="x" AND (Account_vod__c="a" OR Account_Group_vod__c = "a")), com_veeva_clm_ordersWithListPrice(result)"#
        )
        #expect(query.argument("where") == #"WHERE RecordTypeId="x" AND (Account_vod__c="a" OR Account_Group_vod__c = "a")"#)
        #expect(query.callback == "com_veeva_clm_ordersWithListPrice")
        #expect(throws: VeevaRequest.Unreadable.self) { try VeevaRequest("queryObject(Account") }
    }

    @Test("the WHERE grammar of both generations, and what it refuses")
    func whereClauses() throws {
        let record: [String: JSONValue] = [
            "Id": "1", "Product_vod__c": "P2", "Start_Date_vod__c": "2024-03-01", "IsActive": true, "Count": 5, "Empty": "",
        ]
        func matches(_ clause: String) throws -> Bool { try VeevaWhere.parse(clause).matches(record) }
        #expect(try matches(#"WHERE Product_vod__c IN {"P1","P2"}"#))
        #expect(try matches("WHERE product_vod__c CONTAINS ('P2')"))
        #expect(try !matches("WHERE Product_vod__c CONTAINS ('P1','P3')"))
        #expect(try matches(#"Start_Date_vod__c <= "2024-12-31" AND Start_Date_vod__c >= '2024-01-01'"#))
        #expect(try !matches(#"Start_Date_vod__c > "2024-03-01""#))
        #expect(try matches("WHERE IsActive == YES and (Count > 4 OR Count < 1)"))
        #expect(try matches("Count = 5 AND Empty = ''"))
        #expect(try matches("Product_vod__c != 'P1'"))
        #expect(try matches(""))
        #expect(throws: VeevaWhere.NotUnderstood(part: "LIKE 'P%'")) { try VeevaWhere.parse("WHERE Product_vod__c LIKE 'P%'") }
        #expect(throws: VeevaWhere.NotUnderstood.self) { try VeevaWhere.parse("WHERE (a = 'b'") }
        #expect(throws: VeevaWhere.NotUnderstood(part: "'unclosed")) { try VeevaWhere.parse("a = 'unclosed") }
    }

    @Test("a function storybridge does not carry out is refused with its own reason; Approved Email names the template and fragments")
    func refusals() throws {
        func reason(_ text: String) throws -> String { VeevaRefusals.reason(for: try VeevaRequest(text)) }
        let email = try reason("vaultcrm:launchApprovedEmail(TPL-1,FR-1,FR-2),callback(com_veeva_clm_launchApprovedEmail)")
        #expect(email == "storybridge has no Approved Email; asked for template 'TPL-1' with fragments 'FR-1,FR-2'")
        for function in ["getFieldLabel", "getObjectTypeLabels", "getRecordTypeLabels", "getPicklistValueLabels", "getObjectLabels"] {
            #expect(try reason("veeva:\(function)(Account),cb(result)").contains("labels is in no public source read"))
        }
        #expect(
            try reason(#"vaultcrm:request({"url":"https://example.org"}),com_veeva_clm_requestReturn(result)"#).contains("outbound HTTP"))
        #expect(try reason("veeva:launchSelector([]),callback(com_veeva_clm_launchSelector)") == "storybridge has no slide selector")
        #expect(try reason("veeva:makeCoffee(strong),cb(result)").hasPrefix("unknown function"))
    }
}
