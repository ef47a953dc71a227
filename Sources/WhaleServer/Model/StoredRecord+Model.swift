import Foundation
import WhaleModel

extension StoredRecord {
    /// A model change as a row: kind `model`, id = the change's key (one row per key, upserted),
    /// body = the change as JSON.
    init(change: ModelChange) throws {
        let body = try JSONEncoder.sortedKeys.encode(change)
        self.init(kind: "model", id: change.key, body: String(decoding: body, as: UTF8.self))
    }

    /// The change a row holds.
    func modelChange() throws -> ModelChange {
        try JSONDecoder().decode(ModelChange.self, from: Data(body.utf8))
    }
}

extension JSONEncoder {
    /// Keys sorted, so the same change is always the same bytes.
    static var sortedKeys: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
