import WhaleCore

/// The SOAP partner login (`POST /services/Soap/u/{version}`), just enough XML for it: the request's
/// `username` and `password` elements, any namespace prefix, and the response shapes Salesforce sends.
enum SOAPLogin {
    /// The text of the first element named `name` (with or without a prefix), XML-unescaped.
    static func element(_ name: String, in xml: String) -> String? {
        var searchFrom = xml.startIndex
        while let open = xml.range(of: "<", range: searchFrom..<xml.endIndex) {
            guard let close = xml.range(of: ">", range: open.upperBound..<xml.endIndex) else { return nil }
            let tag = xml[open.upperBound..<close.lowerBound]
            let tagName = tag.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
            let local = tagName.split(separator: ":").last.map(String.init) ?? tagName
            if local == name, !tag.hasSuffix("/") {
                guard let end = xml.range(of: "</", range: close.upperBound..<xml.endIndex) else { return nil }
                return unescape(String(xml[close.upperBound..<end.lowerBound]))
            }
            searchFrom = close.upperBound
        }
        return nil
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                if entity.hasPrefix("#x"), let v = UInt32(entity.dropFirst(2), radix: 16), let u = Unicode.Scalar(v) {
                    out.unicodeScalars.append(u)
                } else if entity.hasPrefix("#"), let v = UInt32(entity.dropFirst()), let u = Unicode.Scalar(v) {
                    out.unicodeScalars.append(u)
                } else {
                    out += "&" + entity + ";"
                }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    static func escape(_ text: String) -> String { MarkupEscaping.xml(text) }

    /// The login result. `sessionId` and `serverUrl` are unprefixed and carry no attributes, as
    /// simple-salesforce reads them with `getElementsByTagName('sessionId')`.
    static func success(
        sessionId: String, serverURL: String, metadataServerURL: String, userId: String,
        userInfo: [(String, String?)]
    ) -> String {
        var info = ""
        for (name, value) in userInfo {
            if let value {
                info += "<\(name)>\(escape(value))</\(name)>"
            } else {
                info += "<\(name) xsi:nil=\"true\"/>"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" \
            xmlns="urn:partner.soap.sforce.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>\
            <loginResponse><result><metadataServerUrl>\(escape(metadataServerURL))</metadataServerUrl>\
            <passwordExpired>false</passwordExpired><sandbox>false</sandbox>\
            <serverUrl>\(escape(serverURL))</serverUrl><sessionId>\(escape(sessionId))</sessionId>\
            <userId>\(escape(userId))</userId><userInfo>\(info)</userInfo></result></loginResponse>\
            </soapenv:Body></soapenv:Envelope>
            """
    }

    /// A `sf:LoginFault` (HTTP 500), as Salesforce answers a bad username, password or token.
    static func loginFault(
        code: String = "INVALID_LOGIN",
        message: String = "Invalid username, password, security token; or user locked out."
    ) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" \
        xmlns:sf="urn:fault.partner.soap.sforce.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>\
        <soapenv:Fault><faultcode>sf:\(code)</faultcode><faultstring>\(code): \(escape(message))</faultstring>\
        <detail><sf:LoginFault xsi:type="sf:LoginFault"><sf:exceptionCode>\(code)</sf:exceptionCode>\
        <sf:exceptionMessage>\(escape(message))</sf:exceptionMessage></sf:LoginFault></detail></soapenv:Fault>\
        </soapenv:Body></soapenv:Envelope>
        """
    }

    /// A client fault (HTTP 500) for a body that is not a login request.
    static func clientFault(_ message: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">\
        <soapenv:Body><soapenv:Fault><faultcode>soapenv:Client</faultcode><faultstring>\(escape(message))</faultstring>\
        </soapenv:Fault></soapenv:Body></soapenv:Envelope>
        """
    }
}
