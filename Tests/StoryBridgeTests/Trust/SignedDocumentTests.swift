import Foundation
import Testing

@testable import StoryBridge

@Suite("Signed documents")
struct SignedDocumentTests {
    private let body: JSONValue = ["type": "storybridge-manifest", "specVersion": 1, "files": [["path": "index.html", "size": 3]]]

    @Test("a document signed with a key verifies with its public key, also after a trip through loose JSON")
    func roundTrip() throws {
        let key = TrustPrivateKey()
        let document = try SignedDocument(body: body).signed(with: key, context: .manifest)
        let text = try document.encoded()
        let parsed = try SignedDocument<JSONValue>.parse(text)
        #expect(try parsed.verify(keys: [key.publicKey], context: .manifest) == key.publicKey)
        #expect(parsed.signatures.map(\.keyId) == [key.keyId])
        #expect(try parsed.hash == document.hash)
        // Re-indented with members in another order, it still verifies: the signature is over the
        // canonical bytes of what was parsed.
        let pretty = try JSONSerialization.data(withJSONObject: JSONSerialization.jsonObject(with: text), options: [.prettyPrinted])
        #expect(pretty != text)
        #expect(try SignedDocument<JSONValue>.parse(pretty).verify(keys: [key.publicKey], context: .manifest) == key.publicKey)
    }

    @Test("a signature made for another kind of document, by another key, or over a changed body is refused")
    func refusals() throws {
        let key = TrustPrivateKey()
        let other = TrustPrivateKey()
        let document = try SignedDocument(body: body).signed(with: key, context: .keys)
        #expect(throws: TrustFailure.signatureInvalid(what: "document", keyIds: [key.keyId])) {
            try document.verify(keys: [key.publicKey], context: .manifest)
        }
        #expect(throws: TrustFailure.self) { try document.verify(keys: [other.publicKey], context: .keys) }
        #expect(throws: TrustFailure.self) { try SignedDocument(body: body).verify(keys: [key.publicKey], context: .keys) }

        var text = String(decoding: try document.encoded(), as: UTF8.self)
        text = text.replacingOccurrences(of: #""size":3"#, with: #""size":4"#)
        let changed = try SignedDocument<JSONValue>.parse(Data(text.utf8))
        #expect(throws: TrustFailure.self) { try changed.verify(keys: [key.publicKey], context: .keys) }
        // A signature whose key id claims the trusted key but was made by another key.
        let forged = try SignedDocument(body: body).signed(with: other, context: .keys)
        var forgedText = String(decoding: try forged.encoded(), as: UTF8.self)
        forgedText = forgedText.replacingOccurrences(of: other.keyId, with: key.keyId)
        #expect(throws: TrustFailure.self) {
            try SignedDocument<JSONValue>.parse(Data(forgedText.utf8)).verify(keys: [key.publicKey], context: .keys)
        }
    }

    @Test("signed bytes are the context, a newline and the canonical body; the hash covers the body only")
    func signedBytes() throws {
        let key = TrustPrivateKey()
        let document = try SignedDocument(body: body).signed(with: key, context: .checkpoint)
        let canonical = try CanonicalJSON.encode(body)
        #expect(SignatureContext.checkpoint.signedBytes(canonical) == Array("storybridge-checkpoint-v1\n".utf8) + canonical)
        #expect(key.publicKey.isValidSignature(document.signatures[0].signature, for: SignatureContext.checkpoint.signedBytes(canonical)))
        let twice = try document.signed(with: TrustPrivateKey(), context: .checkpoint)
        #expect(try twice.hash == document.hash)
        #expect(try document.hash.count == 64)
    }

    @Test("a key id is the first 16 bytes of SHA-256 of the raw public key, and a key file's id must match")
    func keyIds() throws {
        let key = TrustPrivateKey().publicKey
        #expect(key.keyId.count == 32)
        #expect(key.keyId == TrustPublicKey.keyId(of: key.rawRepresentation))
        #expect(throws: TrustFailure.self) {
            _ = try TrustPublicKey(json: ["keyId": "00000000000000000000000000000000", "publicKey": .string(key.base64)], what: "root")
        }
        #expect(try TrustPublicKey(json: key.json, what: "root") == key)
    }
}
