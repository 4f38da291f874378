import Foundation

/// A Veeva CRM / Vault CRM delivery written for this project's tests, as agencies send one: a zip
/// per key message (three shapes: `KM_A/KM_A.html` in a folder, `KM_B.html` at the root,
/// `KM_C/index.html`), a shared-resource zip reached as `../shared/…`, a multichannel loader CSV
/// whose order (KM_B, KM_A, KM_C) is not name order, and a CRM data set. Every key message loads
/// `../shared/js/wire.js`, a small library written here that speaks the vendors' wire (request
/// strings, named global callbacks, the `veeva:`/`vaultcrm:` URLs, the `veeva` message handler,
/// `window.external.notify` and a Veeva CRM 4.x-shaped `com.veeva.clm.runAPIRequest`); it copies no
/// vendor code.
package enum VeevaDeliveryFixture {
    /// The key messages in the loader CSV's order.
    package static let order = ["KM_B", "KM_A", "KM_C"]

    /// The CRM data set of the delivery.
    package static let crmData = """
        {
          "current": {"Account": "001A", "Call": "CALL-1", "User": "U-7"},
          "objects": {
            "Account": [
              {"Id": "001A", "Name": "Dr. Ada Lovelace", "Specialty_vod__c": "Cardiology"},
              {"Id": "001B", "Name": "Dr. Alan Turing", "Specialty_vod__c": "Neurology"}
            ],
            "Call2_vod__c": [{"Id": "CALL-1", "Status_vod__c": "Planned_vod"}],
            "User": [{"Id": "U-7", "Name": "Rep Seven"}],
            "Key_Message_vod__c": [
              {"Id": "KM-1", "Media_File_Name_vod__c": "KM_A.zip", "Name": "Key message A"},
              {"Id": "KM-2", "Media_File_Name_vod__c": "KM_B.zip", "Name": "Key message B", "Vault_External_Id_vod__c": "VX-B"}
            ],
            "Pricing_Rule_vod__c": [
              {"Id": "PR-1", "Product_vod__c": "P1", "Start_Date_vod__c": "2024-01-01", "End_Date_vod__c": "2024-12-31"},
              {"Id": "PR-2", "Product_vod__c": "P2", "Start_Date_vod__c": "2025-01-01", "End_Date_vod__c": "2025-12-31"},
              {"Id": "PR-3", "Product_vod__c": "P3", "Start_Date_vod__c": "2024-06-01", "End_Date_vod__c": "2024-06-30"}
            ],
            "pricing_rule__v": [
              {"id": "V-1", "product__v": "P1", "account__v": "001A", "start_date__v": "2024-01-01"},
              {"id": "V-2", "product__v": "P2", "account__v": "001B", "start_date__v": "2024-02-01"},
              {"id": "V-3", "product__v": "P9", "account__v": "001A", "start_date__v": "2024-03-01"}
            ]
          }
        }
        """

    /// The test library: `wire.run(request)` sends a request string (scheme included) through the
    /// transport `wire.transport` names: `location` (URI-encoded after the scheme, as Veeva CRM 4.x
    /// does), `handler` (`webkit.messageHandlers.veeva`), `external` (`window.external.notify`) or
    /// `library` (`com.veeva.clm.runAPIRequest(request)`). `wire.ask(request, name)` first sets the
    /// global `name` to a function that records the answer in `window.answers` (one entry per call,
    /// with the name), as the libraries reassign theirs.
    ///
    /// At the script's top level, outside its function, it declares the namespace as Veeva CRM 4.x's
    /// library does (`var com;`, then `com`, `com.veeva` and `com.veeva.clm` set one after another),
    /// with a `runAPIRequest` that navigates to `veeva:` + the URI-encoded request, as 4.x does
    /// outside Engage and Windows, and an `isEngage` that says whether the page is framed.
    static let wireLibrary = """
        var com;
        if (com == null) com = {};
        if (com.veeva == undefined) com.veeva = {};
        com.veeva.clm = {
          isEngage: function () { return window.self !== window.top; },
          runAPIRequest: function (request) {
            var rest = String(request).replace(/^veeva:/, '');
            document.location = 'veeva:' + encodeURIComponent(rest);
          }
        };
        (function () {
          window.answers = [];
          var wire = window.wire = { transport: 'location' };
          wire.run = function (request) {
            var match = /^(veeva|vaultcrm):/.exec(request);
            if (wire.transport === 'handler') {
              window.webkit.messageHandlers.veeva.postMessage({ message: request });
            } else if (wire.transport === 'external') {
              window.external.notify(request);
            } else if (wire.transport === 'library') {
              com.veeva.clm.runAPIRequest(request);
            } else {
              document.location = match[0] + encodeURIComponent(request.slice(match[0].length));
            }
          };
          wire.ask = function (request, name) {
            window[name] = function (result) { window.answers.push({ name: name, result: result }); };
            wire.run(request);
          };
        })();
        """

    /// One key message's page.
    static func page(_ name: String) -> String {
        """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>\(name)</title>
        <link rel="stylesheet" href="../shared/css/deck.css">
        <script src="../shared/js/wire.js"></script>
        </head><body><h1 id="title">\(name)</h1>
        <a id="to-b" href="veeva:gotoSlide(KM_B.zip)">to B</a>
        <img id="thumb" src="thumb.png" alt="">
        </body></html>
        """
    }

    /// The loader CSV: a presentation row, the shared resource's row, and the slides out of name order.
    static let loaderCSV = """
        document_id__v,external_id__v,name__v,type__v,presentation_link__v,slide.filename,slide.display_order__v,slide.crm_shared_resource__v\r
        ,PRES-1,Fixture deck,Multichannel Presentation,,,,\r
        ,S-C,Key message C,Multichannel Slide,PRES-1,KM_C.zip,3,No\r
        ,S-SH,Shared,Multichannel Slide,PRES-1,shared.zip,,Yes\r
        ,S-A,"Key message A, the second",Multichannel Slide,PRES-1,KM_A.zip,2,No\r
        ,S-B,Key message B,Multichannel Slide,PRES-1,KM_B.zip,1,No\r

        """

    /// Writes the delivery as a folder of zips in `folder` (created), with `crmData` as its data set.
    package static func writeZips(in folder: URL, crmData: String = crmData) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func zip(_ name: String, _ fill: (ZipWriter) throws -> Void) throws {
            let writer = try ZipWriter(path: folder.appendingPathComponent(name).path)
            try fill(writer)
            try writer.close()
        }
        try zip("KM_A.zip") { zip in
            try zip.add("KM_A/KM_A.html", text: page("KM_A"))
            try zip.add("KM_A/thumb.png", data: png)
        }
        try zip("KM_B.zip") { zip in
            try zip.add("KM_B.html", text: page("KM_B"))
            try zip.add("thumb.png", data: png)
            try zip.add("poster.png", data: png)
        }
        try zip("KM_C.zip") { zip in
            try zip.add("KM_C/index.html", text: page("KM_C"))
            try zip.add("KM_C/thumb.png", data: png)
        }
        try zip("shared.zip") { zip in
            try zip.add("shared/css/deck.css", text: "body { color: rgb(1, 2, 3); }\n")
            try zip.add("shared/js/wire.js", text: wireLibrary)
        }
        try Data(loaderCSV.utf8).write(to: folder.appendingPathComponent("loader.csv"))
        try Data(crmData.utf8).write(to: folder.appendingPathComponent("crm-data.json"))
    }

    /// Writes the delivery as one zip of zips at `zip`.
    package static func writeZipOfZips(at zip: URL, crmData: String = crmData) throws {
        let staging = zip.deletingLastPathComponent().appendingPathComponent("veeva-staging-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        try writeZips(in: staging, crmData: crmData)
        let writer = try ZipWriter(path: zip.path)
        for name in try FileManager.default.contentsOfDirectory(atPath: staging.path).sorted() {
            try writer.add(name, data: try Data(contentsOf: staging.appendingPathComponent(name)), compress: false)
        }
        try writer.close()
    }
}
