/// Word lists for generated orgs. Industries and account types match the small fixture's picklists.
enum Words {
    static let firstNames = [
        "Alice", "Bob", "Carol", "Dan", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Ken", "Lena", "Maya",
        "Noah", "Olga", "Pablo", "Quinn", "Rosa", "Sven", "Tara", "Uma", "Vik", "Wen", "Yara", "Zoe",
    ]
    static let lastNames = [
        "Anders", "Baker", "Chen", "Diaz", "Evans", "Fischer", "Garcia", "Hughes", "Ito", "Jones", "Khan", "Lopez",
        "Moore", "Nguyen", "Okafor", "Patel", "Quinn", "Reyes", "Smith", "Tanaka", "Ueda", "Vega", "Weber", "Young",
    ]
    static let titles = ["CEO", "CFO", "CTO", "VP Sales", "Buyer", "Engineer", "Analyst", "Director", "Manager"]
    static let companyStems = [
        "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Cyberdyne", "Soylent", "Tyrell",
        "Vandelay", "Gringotts", "Oscorp", "Nakatomi", "Dunder", "Aperture", "Wonka", "Monarch", "Vector", "Zenith",
    ]
    static let companySuffixes = ["Inc", "LLC", "Corp", "Group", "Labs", "Systems", "Partners", "Holdings"]
    static let industries = [
        "Technology", "Finance", "Healthcare", "Retail", "Manufacturing", "Energy", "Education", "Media",
    ]
    static let accountTypes = [
        "Prospect", "Customer - Direct", "Customer - Channel", "Channel Partner / Reseller", "Installation Partner",
        "Technology Partner", "Other",
    ]
    static let cities: [(String, String)] = [
        ("San Francisco", "CA"), ("Los Angeles", "CA"), ("San Diego", "CA"), ("New York", "NY"), ("Buffalo", "NY"),
        ("Austin", "TX"), ("Houston", "TX"), ("Seattle", "WA"), ("Boston", "MA"), ("Chicago", "IL"),
        ("Miami", "FL"), ("Denver", "CO"), ("Atlanta", "GA"), ("Phoenix", "AZ"), ("Portland", "OR"),
        ("Philadelphia", "PA"), ("Detroit", "MI"), ("Minneapolis", "MN"), ("Nashville", "TN"), ("Raleigh", "NC"),
    ]
}
