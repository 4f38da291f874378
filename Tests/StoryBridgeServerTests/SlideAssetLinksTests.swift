import Foundation
import Testing

@testable import StoryBridgeServer

@Suite("The scripts and style sheets a slide loads, named by version")
struct SlideAssetLinksTests {
    private func urls(_ html: String) -> [String] {
        Array(html.utf8).withUnsafeBytes { SlideAssetLinks.links(in: $0) }.map(\.url)
    }

    @Test("script src and stylesheet href, in document order, whatever the quoting and case")
    func found() {
        let html = """
            <!DOCTYPE html><html><head><LINK REL="Stylesheet" HREF='css/a.css'><link rel=stylesheet href=css/b.css>
            <link rel="icon" href="icon.png"><link rel="preload stylesheet" href="css/c.css">
            <script src="js/a.js"></script><script type="text/javascript" src='js/b.js' defer></script>
            </head><body><script src=js/c.js></script></body></html>
            """
        #expect(urls(html) == ["css/a.css", "css/b.css", "css/c.css", "js/a.js", "js/b.js", "js/c.js"])
    }

    @Test("comments, raw text, attribute values and other URLs are read past")
    func skipped() {
        let html = """
            <!-- <script src="js/commented.js"></script> -->
            <script>var s = '<script src="js/in-text.js"><\\/script>';</script>
            <style>/* <link rel="stylesheet" href="css/in-style.css"> */</style>
            <title><script src="js/in-title.js"></script></title>
            <div data-x='<script src="js/in-attribute.js">'></div>
            <script src="/abs.js"></script><script src="http://cdn.example/x.js"></script><script src="//cdn/x.js"></script>
            <script src="js/q.js?x=1"></script><script src="js/f.js#a"></script><script src="js/amp&amp;.js"></script>
            <script src="./js/dot.js"></script><script src=""></script><script src="data:text/javascript,1"></script>
            <script src="js/kept.js"></script>
            """
        #expect(urls(html) == ["js/kept.js"])
    }

    @Test("a slide with a <base> element gives none")
    func base() {
        #expect(urls(#"<head><base href="other/"><script src="js/a.js"></script></head>"#).isEmpty)
    }

    @Test("an unterminated tag ends the search")
    func unterminated() {
        #expect(urls(#"<script src="js/a.js"></script><script src="js/b.js"#) == ["js/a.js"])
    }

    @Test("linking versions adds ?v= to each file of the presentation, and changes it when the file changes")
    func versions() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sb-versions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("js"), withIntermediateDirectories: true)
        let script = root.appendingPathComponent("js/a.js")
        try Data("one".utf8).write(to: script)
        let html = Data(#"<script src="js/a.js"></script><script src="js/missing.js"></script>"#.utf8)
        let first = String(decoding: VersionedFiles.linkingVersions(in: html, slide: "index.html", root: root), as: UTF8.self)
        let version = try #require(VersionedFiles.version(of: script))
        #expect(first == #"<script src="js/a.js?v=\#(version)"></script><script src="js/missing.js"></script>"#)
        try Data("two!".utf8).write(to: script)
        let second = String(decoding: VersionedFiles.linkingVersions(in: html, slide: "index.html", root: root), as: UTF8.self)
        #expect(second != first)
        #expect(second.contains("js/a.js?v=\(try #require(VersionedFiles.version(of: script)))"))
        // A slide in a folder links files of its own folder: `js/a.js` there is `KM/js/a.js`.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("KM/js"), withIntermediateDirectories: true)
        let own = root.appendingPathComponent("KM/js/a.js")
        try Data("the key message's own".utf8).write(to: own)
        let nested = String(decoding: VersionedFiles.linkingVersions(in: html, slide: "KM/KM.html", root: root), as: UTF8.self)
        #expect(nested.hasPrefix(#"<script src="js/a.js?v=\#(try #require(VersionedFiles.version(of: own)))">"#))
    }
}
