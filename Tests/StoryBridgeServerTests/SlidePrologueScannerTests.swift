import Foundation
import Testing

@testable import StoryBridgeServer

/// Where the client goes, case by case. Each case is written with `|` where the client must be
/// inserted; the scanner reads the text without it.
@Suite("Placing the client script in a slide")
struct SlidePrologueScannerTests {
    static let placements: [(String, String)] = [
        ("an ordinary slide", "<!DOCTYPE html><html><head>|<title>x</title><script src=a.js></script>"),
        ("a script before <html>", "|<script>window.early = 1</script><html><head><title>x</title></head></html>"),
        (
            "a commented-out script block before the doctype",
            "<!-- <script src=\"js/emulator.js\"></script>\n<script src=\"js/context.js\"></script> -->\n\n<!DOCTYPE html>\n"
                + "<html lang=\"ru\">\n\n<head>\n    <meta charset=\"UTF-8\">\n    |<meta name=\"viewport\" content=\"x\">"
        ),
        ("a UTF-8 byte-order mark", "\u{FEFF}<!DOCTYPE html><html><head>|<script src=a.js></script>"),
        ("a UTF-8 byte-order mark before a fragment", "\u{FEFF}|<p>x</p>"),
        ("upper-case tags", "<!DOCTYPE HTML><HTML LANG=EN><HEAD>|<SCRIPT SRC=a.js></SCRIPT>"),
        ("a `>` and `<head>` in attribute values", "<html data-x=\"a > <head>\"><head data-y='<script>' z=>|<script></script>"),
        ("an unquoted value ending in /", "<html><head data-plain=unquoted/>|<title>x</title>"),
        ("a script inside a comment", "<html><head><!-- <script src=never.js></script> -->|<script src=a.js></script>"),
        ("abruptly closed comments", "<!--><!---><!----><!-- a --!>|<p>x</p>"),
        ("a comment holding dashes", "<!-- a - b -- c --->|<p>x</p>"),
        ("<noscript> first in the head", "<html><head>|<noscript><script src=never.js></script></noscript><script></script>"),
        ("<template> first in the head", "<html><head>|<template><script src=never.js></script></template><script></script>"),
        ("a CDATA section", "<!DOCTYPE html><head><![CDATA[ if (a < b) { } ]]>|<script></script>"),
        ("a CDATA section holding a tag ends at its first >", "<head><![CDATA[<script src=never.js>|</script>]]>"),
        (
            "conditional comments",
            "<!DOCTYPE html><!--[if lt IE 9]><html class=old><![endif]--><!--[if gte IE 9]><!--><html class=new><!--<![endif]-->"
                + "<head><!--[if IE]><script src=never.js></script><![endif]--><![if !IE]>|<link rel=icon href=x><![endif]>"
        ),
        ("no <head>", "<!DOCTYPE html><html lang=en>\n|<title>x</title><script></script>"),
        ("neither <html> nor <head>", "<!doctype html>\n<meta charset=utf-8>\n|<script></script>"),
        ("a fragment", "|<p>x</p><script></script>"),
        ("text first", "<!DOCTYPE html>\n|Hello <script></script>"),
        ("an XML prolog", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html><html><head>|<title>x</title>"),
        ("a leading <meta charset>", "<html><head>\n  <meta charset=\"utf-8\">\n  |<meta name=viewport content=x>"),
        ("a leading http-equiv charset", "<HEAD><META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html\">|<title>x</title>"),
        ("a <meta charset> after other metas stays where it is", "<head>|<meta name=viewport><meta charset=utf-8>"),
        ("a <meta charset> before <head>", "<html><meta charset=utf-8><head>|<title>x</title>"),
        ("<base href> after the charset", "<head><meta charset=utf-8>|<base href=\"/elsewhere/\"><script src=a.js></script>"),
        ("<header> is not <head>", "<!DOCTYPE html>|<header>x</header>"),
        ("<html/> and <head/>", "<html/><head/>|<p>x</p>"),
        ("an end tag first", "<html>|</html>"),
        ("a < that is text", "|< div>"),
        ("whitespace of every kind", " \t\n\u{0C}\r<html> \n|<p>"),
        ("an empty file", "|"),
        ("only a prologue", "<!DOCTYPE html><html><head>\n|"),
        ("an unterminated comment swallows the rest", "<!DOCTYPE html>|<!-- <script src=a.js></script>"),
        ("an unterminated tag is dropped", "<html>|<head data-x=\"never closed"),
        ("an unterminated doctype", "|<!DOCTYPE html"),
    ]

    @Test("the client goes before the first thing the parser puts into the document", arguments: placements)
    func placement(_ name: String, _ marked: String) throws {
        let marker = try #require(marked.utf8.firstIndex(of: UInt8(ascii: "|")))
        let expectedOffset = marked.utf8.distance(from: marked.utf8.startIndex, to: marker)
        let bytes = Array(marked.replacingOccurrences(of: "|", with: "").utf8)
        let offset = bytes.withUnsafeBytes { SlidePrologueScanner.clientOffset(in: $0) }
        #expect(offset == .success(expectedOffset), "\(name)")
    }

    @Test("a UTF-16 slide cannot take the client, and says so")
    func utf16() {
        let little: [UInt8] = [0xFF, 0xFE] + Array("<html>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let big: [UInt8] = [0xFE, 0xFF] + Array("<html>".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        #expect(little.withUnsafeBytes { SlidePrologueScanner.clientOffset(in: $0) } == .failure(.utf16(bigEndian: false)))
        #expect(big.withUnsafeBytes { SlidePrologueScanner.clientOffset(in: $0) } == .failure(.utf16(bigEndian: true)))
        #expect(ClientPlacementProblem.utf16(bigEndian: false).message.contains("FF FE"))
        #expect(ClientPlacementProblem.utf16(bigEndian: false).message.contains("Save the file as UTF-8"))
    }

    @Test("the slide's bytes are kept as they are around the client, whatever their encoding")
    func bytesKept() {
        // "Привет" in windows-1251, which is not valid UTF-8: the slide must not be re-encoded.
        let cyrillic: [UInt8] = [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2]
        let head = Array("<html><head><meta charset=windows-1251>".utf8)
        let rest = Array("<title>".utf8) + cyrillic + Array("</title>".utf8)
        let injection = ClientScriptInjector.inject("<script src=\"/c.js\"></script>", into: Data(head + rest))
        #expect(injection.problem == nil)
        #expect(Array(injection.body.readableBytesView) == head + Array("<script src=\"/c.js\"></script>".utf8) + rest)
    }

    @Test("a UTF-16 slide is served unchanged")
    func utf16Unchanged() {
        let slide = Data([0xFF, 0xFE, 0x3C, 0x00, 0x70, 0x00, 0x3E, 0x00])
        let injection = ClientScriptInjector.inject("<script></script>", into: slide)
        #expect(injection.problem == .utf16(bigEndian: false))
        #expect(Data(injection.body.readableBytesView) == slide)
    }

    @Test("the client's address is absolute, so a <base href> cannot send it elsewhere")
    func absoluteSource() throws {
        let tag = ClientScriptInjector.tag(presentationId: 3, slide: "a\"b.html", token: "t<k")
        let source = try #require(tag.firstMatch(of: /src="([^"]*)"/)).1
        #expect(source.hasPrefix("/__storybridge/client.js?v="))
        #expect(tag.contains("data-slide=\"a&quot;b.html\""))
        #expect(tag.contains("data-token=\"t&lt;k\""))
    }
}
