import Foundation
import StoryBridge
import StoryBridgeTesting
import Testing

/// The fixture delivery (``VeevaDeliveryFixture``), unpacked as `serve` unpacks a folder of zips.
private func unpackedDelivery(crmData: String = VeevaDeliveryFixture.crmData) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-e2e-veeva-\(UUID().uuidString)")
    try VeevaDeliveryFixture.writeZips(in: root.appendingPathComponent("zips"), crmData: crmData)
    let unpacked = root.appendingPathComponent("deck")
    try DeliveryUnpacking.unpack(folder: root.appendingPathComponent("zips"), to: unpacked)
    return unpacked
}

@Suite("Veeva CRM and Vault CRM content in headless Chromium", .serialized)
struct VeevaBrowserTests {
    @Test("key messages follow the presentation's order through every transport; shared resources load; veeva: links never leave the page")
    func navigation() async throws {
        try await withBrowser(folders: [try unpackedDelivery()]) { host, page in
            // The presentation opens at the loader CSV's first key message.
            try await page.navigate(to: host.baseURL + "/p/1")
            try await page.waitForSlide("KM_B/KM_B.html")
            #expect(try await page.evaluate("getComputedStyle(document.body).color") == "rgb(1, 2, 3)")
            #expect(try await page.evaluate("typeof window.wire") == "object")
            #expect(
                try await page.evaluate(
                    "document.getElementById('thumb').naturalWidth >= 0 && typeof window.webkit.messageHandlers.setStoryProp") == "object")

            // Vault CRM 2024: the veeva message handler.
            try await page.evaluate("wire.transport = 'handler'; wire.run('vaultcrm:gotoSlide(KM_C.zip)'); true")
            try await page.waitForSlide("KM_C/index.html")
            // Veeva CRM 4.x: document.location = "veeva:" + the encoded request. After the jump from
            // KM_B, prevSlide goes to the key message before KM_C in the presentation: KM_A.
            try await page.evaluate("wire.run('veeva:prevSlide()'); true")
            try await page.waitForSlide("KM_A/KM_A.html")
            // Content's own raw navigation, in a swipe handler.
            try await page.evaluate(#"document.location = "veeva:nextSlide()"; true"#)
            try await page.waitForSlide("KM_C/index.html")
            // A link.
            try await page.click("#to-b")
            try await page.waitForSlide("KM_B/KM_B.html")
            // gotoSlideV2 names the key message by its record's Vault external id.
            try await page.evaluate("wire.transport = 'location'; wire.run('veeva:gotoSlide(KM_C.zip)'); true")
            try await page.waitForSlide("KM_C/index.html")
            try await page.evaluate("wire.run('veeva:gotoSlideV2(VX-B)'); true")
            try await page.waitForSlide("KM_B/KM_B.html")
            // window.external.notify, which the libraries use on Windows.
            try await page.evaluate("wire.transport = 'external'; wire.run('veeva:nextSlide()'); true")
            try await page.waitForSlide("KM_A/KM_A.html")
            #expect(try await page.evaluate("location.protocol") == "http:")
            // The exit hooks content defines run before a navigation request leaves, their
            // requests first: the record is stored before the next key message shows.
            try await page.evaluate(
                #"window.com_veeva_clm_createRecordsOnExit = function () { return 'veeva:saveObjectV2(Call_Clickstream_vod__c),value({"Track_vod__c":"left A"}),callback();'; }; wire.run('veeva:nextSlide()'); true"#
            )
            try await page.waitForSlide("KM_C/index.html")
            let store = CRMStore(database: host.runtime.database, clock: host.runtime.clock)
            let saved = try await store.savedRecords(presentationId: 1)
            #expect(saved.map { $0.fields["Track_vod__c"] } == ["left A"])
            // A navigation the library did not ask for (here a StoryCLM go; the viewer chrome's
            // buttons and deep links alike): the hooks run before the host's navigate event takes
            // the page away, once.
            try await page.evaluate(
                #"window.com_veeva_clm_createRecordsOnExit = function () { return 'veeva:saveObjectV2(Call_Clickstream_vod__c),value({"Track_vod__c":"left C"}),callback();'; }; window.__storybridge.request('go', {slideName: 'KM_A/KM_A.html'}); true"#
            )
            try await page.waitForSlide("KM_A/KM_A.html")
            let deadline = ContinuousClock.now + .seconds(10)
            var tracks: [JSONValue?] = []
            while ContinuousClock.now < deadline {
                tracks = try await store.savedRecords(presentationId: 1).map { $0.fields["Track_vod__c"] }
                if tracks.count >= 2 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(tracks == ["left A", "left C"])
            // A raw file of a key message that is not its slide is served without the client.
            #expect(try await page.evaluate("fetch('/p/1/shared/js/wire.js').then(function (r) { return r.status; })") == 200)
        }
    }

    @Test("every function family is answered in the app's shapes, in request order, once each, to the global named at answer time")
    func answers() async throws {
        try await withBrowser(folders: [try unpackedDelivery()]) { host, page in
            try await page.openSlide("KM_A/KM_A.html", on: host)
            try await page.evaluate(
                #"""
                (function () {
                  wire.ask('veeva:getDataForObjectV2(Account),fieldName(Name),cbAccount(result)', 'cbAccount');
                  wire.transport = 'handler';
                  wire.ask('vaultcrm:getDataForObjectV2(KeyMessage),fieldName(Name),cbKeyMessage(result)', 'cbKeyMessage');
                  wire.transport = 'external';
                  wire.ask('veeva:getDataForObjectV2(Account),objId(001B),fieldName(Specialty_vod__c),cbObject(result)', 'cbObject');
                  wire.transport = 'location';
                  wire.ask('veeva:queryObject(Pricing_Rule_vod__c),fields(ID,Product_vod__c),where(WHERE Start_Date_vod__c <= "2024-12-31" AND End_Date_vod__c >= "2024-06-15" AND Product_vod__c IN {"P1","P3"}),sort(Product_vod__c,desc),cbQuery4(result)', 'cbQuery4');
                  wire.ask("vaultcrm:queryObject(pricing_rule__v),fields(id,product__v),where(WHERE account__v='001A' AND (product__v CONTAINS ('P1','P9') OR id = 'none')),sort([\"start_date__v, DESC\"]),limit(1),cbQueryV(result)", 'cbQueryV');
                  wire.ask('veeva:saveObjectV2(Call_Clickstream_vod__c),value({"Answer_vod__c":"yes (really), sure"}),callback(cbSave)', 'cbSave');
                  wire.ask('vaultcrm:saveObjectV2(Account),updateCurrentRecord(),value({"Name":"Ada"}),callback(cbUpdate)', 'cbUpdate');
                  wire.ask('veeva:getDataForObjectV2(Account),fieldName(Name),cbAfter(result)', 'cbAfter');
                  wire.ask('veeva:getFieldLabel(Account),fields(["Name"]),cbLabel(result)', 'cbLabel');
                  wire.ask("veeva:queryObject(Account),fields(Id),where(WHERE Name LIKE 'Dr%'),cbBadWhere(result)", 'cbBadWhere');
                  // The libraries reassign their globals on every call: the answer goes to what the
                  // name holds when it arrives; a name that holds no function is not called.
                  wire.ask('veeva:getDataForObjectV2(User),fieldName(Name),cbShared(result)', 'cbShared');
                  window.cbShared = function (result) { window.answers.push({ name: 'cbShared, reassigned', result: result }); };
                  window.notAFunction = 5;
                  wire.run('veeva:getDataForObjectV2(Call),fieldName(Status_vod__c),notAFunction(result)');
                  return true;
                })()
                """#)
            let answers = try #require(
                try await page.waitFor(
                    "window.__storybridgeVeeva.stats.answered === 12 && window.answers.length === 11 && window.answers"
                ).arrayValue)
            let names = answers.map { $0["name"]?.stringValue ?? "" }
            #expect(
                names == [
                    "cbAccount", "cbKeyMessage", "cbObject", "cbQuery4", "cbQueryV", "cbSave", "cbUpdate", "cbAfter", "cbLabel",
                    "cbBadWhere", "cbShared, reassigned",
                ])
            func result(_ name: String) -> JSONValue? { answers.first { $0["name"]?.stringValue == name }?["result"] }
            #expect(result("cbAccount") == ["success": true, "Account": ["Name": "Dr. Ada Lovelace"]])
            #expect(result("cbKeyMessage") == ["success": true, "KeyMessage": ["Name": "Key message A"]])
            #expect(result("cbObject") == ["success": true, "Account": ["Specialty_vod__c": "Neurology"]])
            #expect(
                result("cbQuery4")
                    == [
                        "success": true, "record_count": 2,
                        "Pricing_Rule_vod__c": [["ID": "PR-3", "Product_vod__c": "P3"], ["ID": "PR-1", "Product_vod__c": "P1"]],
                    ])
            #expect(result("cbQueryV") == ["success": true, "record_count": 1, "pricing_rule__v": [["id": "V-3", "product__v": "P9"]]])
            let saved = try #require(result("cbSave"))
            #expect(saved["success"] == true && saved["operation"] == "insert" && saved["objectId"]?.stringValue?.isEmpty == false)
            #expect(result("cbUpdate") == ["success": true, "objectId": "001A", "operation": "update"])
            #expect(result("cbAfter") == ["success": true, "Account": ["Name": "Ada"]])
            let label = try #require(result("cbLabel"))
            #expect(label["success"] == false && label["code"] == 1000)
            #expect(label["message"]?.stringValue?.hasPrefix("getFieldLabel: ") == true)
            let badWhere = try #require(result("cbBadWhere"))
            #expect(badWhere["code"] == 1000)
            #expect(badWhere["message"]?.stringValue?.contains("not understood at 'LIKE 'Dr%''") == true)
            #expect(result("cbShared, reassigned") == ["success": true, "User": ["Name": "Rep Seven"]])
            #expect(!names.contains("cbShared"))
            // The saves are kept in SQLite, one row each, with the session they were made in.
            let rows = try await CRMStore(database: host.runtime.database, clock: host.runtime.clock).savedRecords(presentationId: 1)
            #expect(rows.map(\.object).sorted() == ["Account", "Call_Clickstream_vod__c"])
            #expect(rows.first { $0.object == "Call_Clickstream_vod__c" }?.fields["Answer_vod__c"] == "yes (really), sure")
            // Uploaded with the saved session, one record each.
            let sessionId = try #require(rows.first?.sessionId)
            try await host.runtime.analytics.setState(.saved, sessionId: sessionId)
            let queued = try await host.runtime.analytics.outbox(status: .queued).filter { $0.eventId == UploadEventId.crmRecord }
            #expect(queued.count == 2)
            let click = try #require(queued.first { $0.body.contains("Call_Clickstream_vod__c") })
            #expect(try JSONValue.parse(click.body)["fields"]?["Answer_vod__c"] == "yes (really), sure")
            // Each request was answered once: answers come in order, so once one more request is
            // answered, no duplicate of an earlier one can still be on its way.
            try await page.evaluate("wire.ask('veeva:getDataForObjectV2(User),fieldName(Id),cbLast(result)', 'cbLast'); true")
            try await page.waitFor("window.answers.length >= 12")
            #expect(
                try await page.evaluate(
                    "window.__storybridgeVeeva.stats.sent === 13 && window.__storybridgeVeeva.stats.answered === 13 && window.answers.length === 12"
                ) == true)
        }
    }

    @Test(
        "Veeva CRM 4.x's library: com.veeva.clm.runAPIRequest is wrapped as the library defines it; its requests are answered once each, in order, with no navigation"
    )
    func library() async throws {
        try await withBrowser(folders: [try unpackedDelivery()]) { host, page in
            try await page.openSlide("KM_A/KM_A.html", on: host)
            // The library's top-level `var com;` kept the adapter's accessor, and its runAPIRequest
            // is wrapped once.
            #expect(
                try await page.evaluate(
                    "typeof Object.getOwnPropertyDescriptor(window, 'com').get === 'function' && com.veeva.clm.runAPIRequest.__storybridgeWrapped === true"
                ) == true)
            try await page.evaluate(
                #"""
                (function () {
                  wire.transport = 'library';
                  wire.ask('veeva:getDataForObjectV2(Account),fieldName(Name),cbAccount(result)', 'cbAccount');
                  wire.ask('veeva:getDataForObjectV2(Account),objId(001B),fieldName(Specialty_vod__c),cbObject(result)', 'cbObject');
                  wire.ask('veeva:queryObject(Pricing_Rule_vod__c),fields(ID,Product_vod__c),where(WHERE Start_Date_vod__c <= "2024-12-31" AND End_Date_vod__c >= "2024-06-15" AND Product_vod__c IN {"P1","P3"}),sort(Product_vod__c,desc),cbQuery4(result)', 'cbQuery4');
                  wire.ask('veeva:saveObjectV2(Call_Clickstream_vod__c),value({"Answer_vod__c":"100% (sure)"}),callback(cbSave)', 'cbSave');
                  wire.ask('veeva:getFieldLabel(Account),fields(["Name"]),cbLabel(result)', 'cbLabel');
                  return true;
                })()
                """#)
            let answers = try #require(
                try await page.waitFor("window.__storybridgeVeeva.stats.answered === 5 && window.answers.length === 5 && window.answers")
                    .arrayValue)
            #expect(answers.map { $0["name"]?.stringValue ?? "" } == ["cbAccount", "cbObject", "cbQuery4", "cbSave", "cbLabel"])
            func result(_ name: String) -> JSONValue? { answers.first { $0["name"]?.stringValue == name }?["result"] }
            #expect(result("cbAccount") == ["success": true, "Account": ["Name": "Dr. Ada Lovelace"]])
            #expect(result("cbObject") == ["success": true, "Account": ["Specialty_vod__c": "Neurology"]])
            #expect(
                result("cbQuery4")
                    == [
                        "success": true, "record_count": 2,
                        "Pricing_Rule_vod__c": [["ID": "PR-3", "Product_vod__c": "P3"], ["ID": "PR-1", "Product_vod__c": "P1"]],
                    ])
            let saved = try #require(result("cbSave"))
            #expect(saved["success"] == true && saved["operation"] == "insert" && saved["objectId"]?.stringValue?.isEmpty == false)
            let label = try #require(result("cbLabel"))
            #expect(label["success"] == false && label["code"] == 1000)
            #expect(label["message"]?.stringValue?.hasPrefix("getFieldLabel: ") == true)
            // The request went as the library built it, not URI-decoded: the value is stored as written.
            let rows = try await CRMStore(database: host.runtime.database, clock: host.runtime.clock).savedRecords(presentationId: 1)
            #expect(rows.map { $0.fields["Answer_vod__c"] } == ["100% (sure)"])
            // Once each (answers come in order, so once one more is answered no duplicate is on its
            // way), and no navigation was started for any of them.
            try await page.evaluate("wire.ask('veeva:getDataForObjectV2(User),fieldName(Name),cbLast(result)', 'cbLast'); true")
            try await page.waitFor("window.answers.length >= 6")
            #expect(
                try await page.evaluate(
                    "var s = window.__storybridgeVeeva.stats; s.sent === 6 && s.answered === 6 && window.answers.length === 6 && s.navigations === 0"
                ) == true)
            // The same request through the 'location' transport is a navigation, caught.
            try await page.evaluate(
                "wire.transport = 'location'; wire.ask('veeva:getDataForObjectV2(User),fieldName(Name),cbNavigated(result)', 'cbNavigated'); true"
            )
            try await page.waitFor("window.answers.length >= 7")
            #expect(
                try await page.evaluate(
                    "var s = window.__storybridgeVeeva.stats; s.answered === 7 && window.answers.length === 7 && s.navigations === 1 && window.answers[6].result.User.Name === 'Rep Seven'"
                ) == true)

            // Navigation requests through the library follow the presentation's order (KM_B, KM_A,
            // KM_C) and run the exit hooks first, once; the hook records how many navigations the
            // page had caught by then (the one 'location' call above, none for this request).
            try await page.evaluate(
                #"window.com_veeva_clm_createRecordsOnExit = function () { sessionStorage.setItem('navigationsAtExit', String(window.__storybridgeVeeva.stats.navigations)); return 'veeva:saveObjectV2(Call_Clickstream_vod__c),value({"Track_vod__c":"left A by the library"}),callback();'; }; wire.transport = 'library'; wire.run('veeva:nextSlide()'); true"#
            )
            try await page.waitForSlide("KM_C/index.html")
            #expect(try await page.evaluate("sessionStorage.getItem('navigationsAtExit')") == "1")
            let store = CRMStore(database: host.runtime.database, clock: host.runtime.clock)
            #expect(try await store.savedRecords(presentationId: 1).compactMap { $0.fields["Track_vod__c"] } == ["left A by the library"])
            try await page.evaluate("wire.transport = 'library'; wire.run('veeva:gotoSlide(KM_B.zip)'); true")
            try await page.waitForSlide("KM_B/KM_B.html")
            try await page.evaluate("wire.transport = 'library'; wire.run('veeva:nextSlide()'); true")
            try await page.waitForSlide("KM_A/KM_A.html")
            try await page.evaluate("wire.transport = 'library'; wire.run('veeva:prevSlide()'); true")
            try await page.waitForSlide("KM_B/KM_B.html")

            // Content that assigns the whole namespace at once, veeva and clm inside, is wrapped too;
            // assigning clm again does not wrap it a second time. Framed (the library's own isEngage
            // says so), the library's original runs: here a navigation, caught by the navigate event.
            try await page.evaluate(
                #"""
                (function () {
                  window.originalCalls = 0;
                  com = { veeva: { clm: {
                    isEngage: function () { return false; },
                    runAPIRequest: function (request) {
                      window.originalCalls += 1;
                      document.location = 'veeva:' + encodeURIComponent(request.replace(/^veeva:/, ''));
                    }
                  } } };
                  var wrapped = com.veeva.clm.runAPIRequest;
                  com.veeva.clm = com.veeva.clm;
                  window.wrappedOnce = wrapped.__storybridgeWrapped === true && com.veeva.clm.runAPIRequest === wrapped;
                  wire.transport = 'library';
                  wire.ask('veeva:getDataForObjectV2(Account),fieldName(Name),cbAssigned(result)', 'cbAssigned');
                  return true;
                })()
                """#)
            try await page.waitFor("window.answers.length >= 1")
            #expect(
                try await page.evaluate(
                    "window.wrappedOnce === true && window.originalCalls === 0 && window.__storybridgeVeeva.stats.navigations === 0 && window.answers[0].name === 'cbAssigned' && window.answers[0].result.Account.Name === 'Dr. Ada Lovelace'"
                ) == true)
            try await page.evaluate(
                "com.veeva.clm.isEngage = function () { return true; }; wire.ask('veeva:getDataForObjectV2(User),fieldName(Name),cbFramed(result)', 'cbFramed'); true"
            )
            try await page.waitFor("window.answers.length >= 2")
            #expect(
                try await page.evaluate(
                    "window.originalCalls === 1 && window.__storybridgeVeeva.stats.navigations === 1 && window.answers[1].name === 'cbFramed' && window.answers[1].result.User.Name === 'Rep Seven'"
                ) == true)
        }
    }

    @Test("a CRM data set with a fault: every data request is answered with code 1000 naming the place")
    func faultyDataSet() async throws {
        let broken = #"{"objects": {"Account": [{"Id": "001A"}, {"Name": "no id"}]}}"#
        try await withBrowser(folders: [try unpackedDelivery(crmData: broken)]) { host, page in
            try await page.openSlide("KM_B/KM_B.html", on: host)
            try await page.evaluate("wire.ask('veeva:getDataForObjectV2(Account),fieldName(Name),cbBroken(result)', 'cbBroken'); true")
            let answer = try await page.waitFor("window.answers.length === 1 && window.answers[0].result")
            #expect(answer["success"] == false && answer["code"] == 1000)
            #expect(answer["message"]?.stringValue?.contains("objects.Account[1]") == true)
            // Navigation still works.
            try await page.evaluate("wire.run('veeva:nextSlide()'); true")
            try await page.waitForSlide("KM_A/KM_A.html")
        }
    }
}
