import Foundation
import StoryBridgeTesting
import Testing

@testable import StoryBridge

/// Veeva deliveries read as agencies send them: zips per key message, the shared resource, the
/// loader CSV's order, and every inner zip checked as a package.
@Suite("Veeva deliveries")
struct VeevaDeliveryTests {
    @Test("a folder of zips unpacks to a folder per key message and shared/, read in the loader CSV's order")
    func folderOfZips() throws {
        let root = try scratchFolder("sb-veeva")
        defer { try? FileManager.default.removeItem(at: root) }
        let delivery = root.appendingPathComponent("delivery")
        try VeevaDeliveryFixture.writeZips(in: delivery)
        #expect(DeliveryUnpacking.needsUnpacking(folder: delivery, dialect: nil))
        #expect(!DeliveryUnpacking.needsUnpacking(folder: delivery, dialect: .storyclm))
        let unpacked = root.appendingPathComponent("unpacked")
        try DeliveryUnpacking.unpack(folder: delivery, to: unpacked)
        let presentation = try PresentationFolder.load(unpacked, catalog: .init(id: 4))
        #expect(presentation.dialect == .veeva)
        #expect(presentation.slides.map(\.name) == ["KM_B/KM_B.html", "KM_A/KM_A.html", "KM_C/index.html"])
        #expect(presentation.entrySlide == "KM_B/KM_B.html")
        // Each key message's thumb.png is its slide's thumbnail.
        #expect(presentation.slides.map(\.thumbnail) == ["KM_B/thumb.png", "KM_A/thumb.png", "KM_C/thumb.png"])
        #expect(FileManager.default.fileExists(atPath: unpacked.appendingPathComponent("shared/css/deck.css").path))
        #expect(FileManager.default.fileExists(atPath: unpacked.appendingPathComponent("KM_B/poster.png").path))
        #expect(presentation.crmDataSet?.lastPathComponent == "crm-data.json")
        #expect(VeevaDelivery.slide(forKeyMessage: "KM_C.zip", in: presentation) == "KM_C/index.html")
        #expect(VeevaDelivery.slide(forKeyMessage: "km_a", in: presentation) == "KM_A/KM_A.html")
    }

    @Test("a Veeva presentation's map, next and previous slides follow its key-message order, over the socket too")
    func mapAndNeighbours() async throws {
        let root = try scratchFolder("sb-veeva")
        defer { try? FileManager.default.removeItem(at: root) }
        let delivery = root.appendingPathComponent("delivery")
        try VeevaDeliveryFixture.writeZips(in: delivery)
        let unpacked = root.appendingPathComponent("unpacked")
        try DeliveryUnpacking.unpack(folder: delivery, to: unpacked)
        let presentation = try PresentationFolder.load(unpacked, catalog: .init(id: 1))
        #expect(presentation.map.children == ["KM_B/KM_B.html": ["KM_A/KM_A.html", "KM_C/index.html"]])
        #expect(presentation.map.parents["KM_C/index.html"] == "KM_B/KM_B.html")
        #expect(presentation.neighbour(of: "KM_A/KM_A.html", offset: 1) == "KM_C/index.html")
        #expect(presentation.neighbour(of: "KM_A/KM_A.html", offset: -1) == "KM_B/KM_B.html")
        #expect(presentation.neighbour(of: "KM_C/index.html", offset: 1) == nil)
        #expect(SlideShooter.order(of: presentation).map(\.name) == ["KM_B/KM_B.html", "KM_A/KM_A.html", "KM_C/index.html"])

        let host = try await TestHost.start(presentationFolders: [unpacked], catalogs: [.init(id: 1)])
        try await host.use { host in
            // Opened on the last key message (as after a jump): previous is the one before it in
            // the order, next is refused.
            let page = try await host.connectViewer(slide: "KM_C/index.html")
            #expect(try await page.request("getPreviousSlide").data == ["slide": "KM_A/KM_A.html"])
            #expect(try await page.request("getNextSlide").errorCode == 404)
            let map = try await page.request("getMap").data
            #expect(map == ["KM_B/KM_B.html": ["KM_A/KM_A.html", "KM_C/index.html"]])
            await page.close()
        }
    }

    @Test("a zip of zips is detected and unpacked; a StoryCLM package stays StoryCLM")
    func zipOfZips() throws {
        let root = try scratchFolder("sb-veeva")
        defer { try? FileManager.default.removeItem(at: root) }
        let zip = root.appendingPathComponent("deck.zip")
        try VeevaDeliveryFixture.writeZipOfZips(at: zip)
        let unpacked = root.appendingPathComponent("unpacked")
        try DeliveryUnpacking.unpack(zip: zip, to: unpacked, dialect: nil)
        let presentation = try PresentationFolder.load(unpacked, catalog: .init(id: 1))
        #expect(presentation.dialect == .veeva)
        #expect(presentation.slides.count == 3)
        // Nothing but the delivery is left beside it (the outer zip's staging is gone).
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["deck.zip", "unpacked"])

        let package = root.appendingPathComponent("storyclm.zip")
        let writer = try ZipWriter(path: package.path)
        try writer.add("index.html", text: "<html><body>start</body></html>")
        try writer.add("b.html", text: "<html><body>b</body></html>")
        try writer.close()
        let storyclm = root.appendingPathComponent("storyclm")
        try DeliveryUnpacking.unpack(zip: package, to: storyclm, dialect: nil)
        let loaded = try PresentationFolder.load(storyclm, catalog: .init(id: 2))
        #expect(loaded.dialect == .storyclm)
        #expect(loaded.slides.map(\.name) == ["b.html", "index.html"])
        #expect(loaded.entrySlide == "index.html")
    }

    @Test("a hostile inner zip is refused with the package's checks, and nothing is left behind")
    func hostileInnerZip() throws {
        let root = try scratchFolder("sb-veeva")
        defer { try? FileManager.default.removeItem(at: root) }
        let delivery = root.appendingPathComponent("delivery")
        try VeevaDeliveryFixture.writeZips(in: delivery)
        let evil = try ZipWriter(path: delivery.appendingPathComponent("KM_Z.zip").path)
        try evil.add("../escape.html", text: "<html></html>")
        try evil.close()
        let unpacked = root.appendingPathComponent("unpacked")
        #expect(throws: PackageError.self) { try DeliveryUnpacking.unpack(folder: delivery, to: unpacked) }
        #expect(!FileManager.default.fileExists(atPath: unpacked.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["delivery"])

        // A bomb inside a zip of zips: the ratio check of a package.
        let outer = root.appendingPathComponent("bomb.zip")
        let staging = root.appendingPathComponent("bomb-staging")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        let inner = try ZipWriter(path: staging.appendingPathComponent("KM_A.zip").path)
        try inner.add("KM_A/KM_A.html", count: 64 << 20) { _, size in Data(repeating: 0, count: size) }
        try inner.close()
        let writer = try ZipWriter(path: outer.path)
        try writer.add("KM_A.zip", data: try Data(contentsOf: staging.appendingPathComponent("KM_A.zip")), compress: false)
        try writer.close()
        let target = root.appendingPathComponent("bomb-unpacked")
        #expect(throws: PackageError.self) { try DeliveryUnpacking.unpack(zip: outer, to: target, dialect: .veeva) }
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() == ["bomb-staging", "bomb.zip", "delivery"])
    }

    @Test("without a CSV the order is veeva.json's list, else name order; a list naming a missing key message is refused")
    func orderSources() throws {
        let root = try scratchFolder("sb-veeva")
        defer { try? FileManager.default.removeItem(at: root) }
        for name in ["B", "A", "C"] {
            let folder = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("<html></html>".utf8).write(to: folder.appendingPathComponent("\(name).html"))
        }
        #expect(try PresentationFolder.load(root, catalog: .init(id: 1)).slides.map(\.name) == ["A/A.html", "B/B.html", "C/C.html"])
        try Data(#"{"keyMessages": ["C.zip", "A"]}"#.utf8).write(to: root.appendingPathComponent("veeva.json"))
        #expect(try PresentationFolder.load(root, catalog: .init(id: 1)).slides.map(\.name) == ["C/C.html", "A/A.html", "B/B.html"])
        try Data(#"{"keyMessages": ["D"]}"#.utf8).write(to: root.appendingPathComponent("veeva.json"))
        #expect(throws: PresentationFolderError.self) { try PresentationFolder.load(root, catalog: .init(id: 1)) }
        // Forced as StoryCLM, the folder has no index.html.
        var forced = PresentationFolder.Catalog(id: 1)
        forced.dialect = .storyclm
        #expect(throws: PresentationFolderError.missingIndex(root.path)) { try PresentationFolder.load(root, catalog: forced) }
    }
}

/// `storybridge install` of a Veeva delivery: the catalog keeps its dialect and key-message order.
@Suite("Veeva deliveries in the library")
struct VeevaLibraryTests {
    @Test("a zip of zips installs as a Veeva presentation, read back with its order, dialect and data set; sync's default stays StoryCLM")
    func install() throws {
        let lab = try PackageLab()
        defer { try? FileManager.default.removeItem(at: lab.folder) }
        let zip = lab.folder.appendingPathComponent("veeva.zip")
        try VeevaDeliveryFixture.writeZipOfZips(at: zip)

        var strict = LibraryStore.InstallOptions(id: 3)
        strict.dialect = .storyclm
        #expect(throws: PackageError.missingIndex) { try lab.store().install(zip: zip, options: strict) }

        var detected = LibraryStore.InstallOptions(id: 3)
        detected.dialect = nil
        _ = try lab.store().install(zip: zip, options: detected)
        let entry = try #require(try lab.store().entry(id: 3))
        #expect(entry.presentation.dialect == .veeva)
        #expect(entry.presentation.slides.map(\.name) == ["KM_B/KM_B.html", "KM_A/KM_A.html", "KM_C/index.html"])
        #expect(entry.presentation.entrySlide == "KM_B/KM_B.html")
        #expect(entry.presentation.crmDataSet?.lastPathComponent == "crm-data.json")
        #expect(entry.fileCount > 5 && entry.sizeBytes > 0)

        // A StoryCLM package keeps name order and its dialect.
        var package = LibraryStore.InstallOptions(id: 4)
        package.dialect = nil
        _ = try lab.store().install(zip: try lab.validPackage(), options: package)
        let storyclm = try #require(try lab.store().entry(id: 4))
        #expect(storyclm.presentation.dialect == .storyclm)
        #expect(storyclm.presentation.slides.map(\.name) == ["b.html", "index.html"])
    }
}

/// `storybridge install` of a delivery folder: the key-message (sequence) zips as delivered.
@Suite("Delivery folders in the library")
struct DeliveryFolderInstallTests {
    @Test(
        "a folder of Veeva key-message zips and one of OCE sequence zips install with their dialect; a second install keeps the first"
    )
    func installsFolders() throws {
        let lab = try PackageLab()
        defer { try? FileManager.default.removeItem(at: lab.folder) }
        let veeva = lab.folder.appendingPathComponent("veeva-delivery")
        try VeevaDeliveryFixture.writeZips(in: veeva)
        var options = LibraryStore.InstallOptions(id: 5)
        options.dialect = nil
        options.keptRevisions = 1
        _ = try lab.store().install(zip: veeva, options: options)
        let entry = try #require(try lab.store().entry(id: 5))
        #expect(entry.presentation.dialect == .veeva)
        #expect(entry.presentation.slides.map(\.name) == ["KM_B/KM_B.html", "KM_A/KM_A.html", "KM_C/index.html"])
        #expect(entry.presentation.name == "veeva-delivery")

        _ = try lab.store().install(zip: veeva, options: options)
        #expect(try lab.store().entry(id: 5)?.presentation.revision == 2)
        #expect(try lab.store().keptRevisions(id: 5).map(\.revision) == [1])

        let oce = lab.folder.appendingPathComponent("oce-delivery")
        try OceDeliveryFixture.writeZips(in: oce)
        var oceOptions = LibraryStore.InstallOptions(id: 6)
        oceOptions.dialect = nil
        _ = try lab.store().install(zip: oce, options: oceOptions)
        #expect(try lab.store().entry(id: 6)?.presentation.dialect == .oce)
    }

    @Test("a slide kept before v17-kept-dialect (no position in its JSON) is read in name order")
    func keptSlideWithoutPosition() throws {
        let slide = try JSONDecoder().decode(KeptRevision.StoredSlide.self, from: Data(#"{"name":"a.html","links":""}"#.utf8))
        #expect(slide.position == nil && slide.name == "a.html")
    }

    @Test("a folder that is not a delivery of zips is refused by name, and the library is left as it was")
    func refusesPlainFolder() throws {
        let lab = try PackageLab()
        defer { try? FileManager.default.removeItem(at: lab.folder) }
        let plain = lab.folder.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        try "<html></html>".write(to: plain.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        var options = LibraryStore.InstallOptions(id: 7)
        options.dialect = nil
        #expect(throws: PackageError.folderNotADelivery(path: plain.path)) { try lab.store().install(zip: plain, options: options) }
        #expect(try lab.store().entries().isEmpty)
        let staged = (try? FileManager.default.contentsOfDirectory(atPath: lab.directory.staging.path)) ?? []
        #expect(staged.isEmpty)
        #expect(
            PackageError.folderNotADelivery(path: plain.path).description
                == "'\(plain.path)' is a folder: install takes a package zip, or a Veeva or OCE delivery folder of key-message (sequence) zips; to look at a plain folder, serve it"
        )
    }
}

/// What a zip is read as when no dialect is given.
@Suite("Delivery detection of zips")
struct DeliveryDetectionTests {
    @Test("a zip of key-message folders is Veeva's; a zip without index.html and without them is refused as a package")
    func zipShapes() throws {
        let lab = try PackageLab()
        defer { try? FileManager.default.removeItem(at: lab.folder) }
        let folders = try lab.zip("folders.zip") { zip in
            try zip.add("KM_A/KM_A.html", text: "<html></html>")
            try zip.add("KM_B/index.html", text: "<html></html>")
        }
        let unpacked = lab.folder.appendingPathComponent("folders")
        try DeliveryUnpacking.unpack(zip: folders, to: unpacked, dialect: nil)
        #expect(try PresentationFolder.load(unpacked, catalog: .init(id: 1)).slides.map(\.name) == ["KM_A/KM_A.html", "KM_B/index.html"])

        let broken = try lab.zip("broken.zip") { zip in
            try zip.add("css/site.css", text: "body {}")
            try zip.add("page.html", text: "<html></html>")
        }
        let target = lab.folder.appendingPathComponent("broken")
        #expect(throws: PackageError.missingIndex) { try DeliveryUnpacking.unpack(zip: broken, to: target, dialect: nil) }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }
}
