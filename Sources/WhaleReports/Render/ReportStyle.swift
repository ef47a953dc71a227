/// The report's inline stylesheet: system fonts only, light by default, dark under
/// `prefers-color-scheme: dark`; chart colours as CSS variables so the SVG follows.
enum ReportStyle {
    static let css = """
        :root{--bg:#ffffff;--fg:#1d2330;--muted:#5b6475;--line:#d8dde6;--panel:#f5f7fa;--valid:#137333;--invalid:#c5221f;--unknown:#a05a00;\
        --s0:#1a73e8;--s1:#e37400;--s2:#9334e6;--s3:#d01884;--s4:#188038;--s5:#5f6368;--fault:rgba(217,48,37,.13);--hit:#fce8b2;\
        --f-partition:rgba(217,48,37,.14);--f-slow:rgba(242,153,0,.18);--f-disconnect:rgba(128,134,139,.18);--f-server:rgba(147,52,230,.15);color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#14171c;--fg:#e6e9ef;--muted:#9aa3b2;--line:#353b45;--panel:#1d2128;--valid:#81c995;\
        --invalid:#f28b82;--unknown:#fdd663;--s0:#8ab4f8;--s1:#fcad70;--s2:#c58af9;--s3:#ff8bcb;--s4:#81c995;--s5:#bdc1c6;\
        --fault:rgba(242,139,130,.16);--hit:#5c4a13;--f-partition:rgba(242,139,130,.18);--f-slow:rgba(253,214,99,.16);\
        --f-disconnect:rgba(189,193,198,.14);--f-server:rgba(197,138,249,.18)}}
        *{box-sizing:border-box}
        body{margin:0 auto;max-width:1000px;padding:16px 20px 48px;background:var(--bg);color:var(--fg);\
        font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
        h1{font-size:22px;margin:8px 0}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
        h3{font-size:14px;margin:16px 0 4px}
        code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
        pre{background:var(--panel);padding:8px 10px;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
        table{border-collapse:collapse;width:100%;margin:6px 0}th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
        th{color:var(--muted);font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
        .badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:700;font-size:12px;border:1px solid currentColor}
        .valid{color:var(--valid)}.invalid{color:var(--invalid)}.unknown{color:var(--unknown)}
        .verdict{font-size:18px}.meta{color:var(--muted)}.note{color:var(--muted);font-style:italic}
        ul.evidence{margin:0;padding-left:18px}ul.evidence li{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
        svg.chart{width:100%;height:auto;display:block;background:var(--panel);border-radius:6px}
        svg .grid{stroke:var(--line);stroke-width:1}svg .axis{stroke:var(--muted);stroke-width:1}
        svg .tick,svg .label{fill:var(--muted);font-size:11px;font-family:system-ui,sans-serif}
        svg .line{fill:none;stroke-width:1.8;stroke-linejoin:round}svg rect.fault{fill:var(--fault)}\
        svg rect.partition{fill:var(--f-partition)}svg rect.slow-client{fill:var(--f-slow)}svg rect.disconnect{fill:var(--f-disconnect)}svg rect.server-restart{fill:var(--f-server)}
        path.s0{stroke:var(--s0)}path.s1{stroke:var(--s1)}path.s2{stroke:var(--s2)}path.s3{stroke:var(--s3)}path.s4{stroke:var(--s4)}path.s5{stroke:var(--s5)}
        circle.s0{fill:var(--s0)}circle.s1{fill:var(--s1)}circle.s2{fill:var(--s2)}circle.s3{fill:var(--s3)}circle.s4{fill:var(--s4)}circle.s5{fill:var(--s5)}
        .legend span{margin-right:14px;white-space:nowrap}.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:4px;vertical-align:-1px}
        i.s0{background:var(--s0)}i.s1{background:var(--s1)}i.s2{background:var(--s2)}i.s3{background:var(--s3)}i.s4{background:var(--s4)}i.s5{background:var(--s5)}
        i.fault{background:var(--fault);border:1px solid var(--muted)}i.partition{background:var(--f-partition)}i.slow-client{background:var(--f-slow)}\
        i.disconnect{background:var(--f-disconnect)}i.server-restart{background:var(--f-server)}
        table.timeline td{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:11.5px;white-space:nowrap}
        table.timeline td.t{color:var(--muted);text-align:right}table.timeline tr.hit td{background:var(--hit)}
        table.timeline tr.hit td.t::after{content:" ◀ first divergence";color:var(--invalid);font-weight:700}
        .scroll{overflow-x:auto}
        .ack{color:var(--valid)}.fail{color:var(--invalid)}.remote{color:var(--s2)}.cursor{color:var(--muted)}.fault-ev{color:var(--invalid)}
        """
}
