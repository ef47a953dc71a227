/// Salesforce's query error layout: the offending line, a caret under the token, its row and
/// column, then the message:
///
/// ```
///
/// SELECT Id FORM Account
///           ^
/// ERROR at Row:1:Column:11
/// unexpected token: 'FORM'
/// ```
enum QueryErrorFormat {
    static func message(query: String, offset: Int, text: String) -> String {
        let scalars = Array(query.unicodeScalars)
        let at = min(max(offset, 0), scalars.count)
        var row = 1
        var lineStart = 0
        for i in 0..<at where scalars[i] == "\n" {
            row += 1
            lineStart = i + 1
        }
        var lineEnd = lineStart
        while lineEnd < scalars.count, scalars[lineEnd] != "\n" { lineEnd += 1 }
        var line = String.UnicodeScalarView()
        line.append(contentsOf: scalars[lineStart..<lineEnd])
        let column = at - lineStart + 1
        return
            "\n\(String(line))\n\(String(repeating: " ", count: column - 1))^\nERROR at Row:\(row):Column:\(column)\n\(text)"
    }
}
