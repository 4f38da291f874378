import Foundation

/// An IQVIA OCE delivery written for this project's tests, as agencies send one: a zip per
/// sequence (`Intro.zip` and `Efficacy.zip` with their slides at the root, `Safety.zip` with them
/// under a folder `Safety/`), slides `NN_name.html` with thumbnails `NN_thumbnail.jpg`, an asset
/// `oceasset_brandpi.pdf` in `Intro.zip` (as the public content template keeps its PDF), and
/// `oce.json` putting the sequences in an order that is not name order (Intro, Safety, Efficacy)
/// and mapping the sequence id `SEQ-EFF` to `Efficacy.zip`. Every slide loads its sequence's
/// `js/player.js`, a small `CLMPlayer` written here that speaks the OCE wire
/// (`JSON.stringify({request, params})` through the bare `webkit` global's `nativeCall` handler,
/// or, with `window.wireVariant = 'postMessage'`, through `parent.postMessage`); it copies no
/// vendor code. Each slide records the events the player pushes in `window.events`.
package enum OceDeliveryFixture {
    /// The slides in the presentation's order.
    package static let order = [
        "Intro/01_welcome.html", "Intro/02_overview.html", "Safety/01_safety.html", "Efficacy/01_data.html",
        "Efficacy/02_study.html", "Efficacy/10_summary.html",
    ]

    /// The delivery's `oce.json`.
    package static let settings = #"{"order": ["Intro", "Safety.zip", "Efficacy"], "sequences": {"SEQ-EFF": "Efficacy.zip"}}"#

    /// The test player: the `CLMPlayer` functions, each posting `{request, params}` with the
    /// parameter names of the OCE library; `registerEventListener` and `executeEvent`.
    package static let playerLibrary = """
        CLMPlayer = { registeredEvents: {} };
        (function () {
          function post(request, names, values) {
            var params = {};
            for (var i = 0; i < names.length; i++) { params[names[i]] = values[i]; }
            var text = JSON.stringify({ request: request, params: params });
            if (window.wireVariant === 'postMessage') { parent.postMessage(text, '*'); }
            else { webkit.messageHandlers.nativeCall.postMessage(text); }
          }
          var table = {
            getSurveyFlowJsonForCall: ['json'], getSurveyFlowJson: ['json'], updateFeedback: ['type'],
            gotoSlide: ['sequenceId', 'slideName', 'animation'], goPreviousSequence: [], goNextSequence: [],
            startTrackingPage: ['pageid'], stopTrackingPage: [], saveState: ['state'], alert: ['msg'],
            addAction: ['action__c', 'detailedtime__c', 'fromtime__c', 'totime__c', 'product__c', 'pageid__c',
              'productmessageexternalid__c', 'slideorder__c', 'category__c', 'reaction__c', 'questionraised__c',
              'extra1__c', 'extra2__c', 'extra3__c', 'extra4__c', 'extra5__c', 'assets'],
            defineNoSwipeRegion: ['regionId', 'x', 'y', 'width', 'height'], destroyNoSwipeRegion: ['regionId']
          };
          Object.keys(table).forEach(function (name) {
            CLMPlayer[name] = function () { post(name, table[name], arguments); };
          });
          CLMPlayer.registerEventListener = function (type, fn) {
            (CLMPlayer.registeredEvents[type] = CLMPlayer.registeredEvents[type] || []).push(fn);
          };
          CLMPlayer.executeEvent = function (type, param) {
            var listeners = CLMPlayer.registeredEvents[type] || [];
            for (var i = 0; i < listeners.length; i++) { listeners[i](param); }
          };
        })();
        window.events = [];
        CLMPlayer.registerEventListener('viewappearing', function () { window.events.push('viewappearing'); });
        """

    /// One slide's page.
    package static func page(_ title: String) -> String {
        """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>\(title)</title>
        <link rel="stylesheet" href="css/deck.css">
        <script src="js/player.js"></script>
        </head><body style="margin:0;width:1024px;height:768px"><h1 id="title">\(title)</h1>
        </body></html>
        """
    }

    /// The asset `Intro/oceasset_brandpi.pdf` (opened by `gotoSlide('oceasset_brandpi')`): a one-page PDF.
    package static let assetPDF = """
        %PDF-1.1
        1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
        2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
        3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] >> endobj
        trailer << /Root 1 0 R >>
        %%EOF

        """

    /// Writes the delivery as a folder of sequence zips in `folder` (created).
    package static func writeZips(in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0xFF, 0xD9])
        func sequence(_ name: String, prefix: String = "", slides: [String], extra: (ZipWriter) throws -> Void = { _ in }) throws {
            let writer = try ZipWriter(path: folder.appendingPathComponent("\(name).zip").path)
            try extra(writer)
            for slide in slides {
                try writer.add(prefix + slide, text: page(slide))
                try writer.add(prefix + String(slide.prefix { $0 != "_" }) + "_thumbnail.jpg", data: jpeg)
            }
            try writer.add(prefix + "css/deck.css", text: "body { color: rgb(4, 5, 6); }\n")
            try writer.add(prefix + "js/player.js", text: playerLibrary)
            try writer.close()
        }
        try sequence("Intro", slides: ["01_welcome.html", "02_overview.html"]) { writer in
            // An asset beside the slides, as the public template keeps its PDF.
            try writer.add("oceasset_brandpi.pdf", text: assetPDF)
        }
        try sequence("Efficacy", slides: ["10_summary.html", "01_data.html", "02_study.html"])
        try sequence("Safety", prefix: "Safety/", slides: ["01_safety.html"])
        try Data(settings.utf8).write(to: folder.appendingPathComponent("oce.json"))
    }

    /// Writes the delivery as one zip of zips at `zip`.
    package static func writeZipOfZips(at zip: URL) throws {
        let staging = zip.deletingLastPathComponent().appendingPathComponent("oce-staging-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        try writeZips(in: staging)
        let writer = try ZipWriter(path: zip.path)
        for name in try FileManager.default.contentsOfDirectory(atPath: staging.path).sorted() {
            try writer.add(name, data: try Data(contentsOf: staging.appendingPathComponent(name)), compress: false)
        }
        try writer.close()
    }
}
