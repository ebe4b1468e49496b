/**
 * Every way a page can make the browser send something, aimed at one target origin. Each request's
 * path is `/k/<kind>`, so a listener's log says which kind got through. Navigations happen in frames
 * (named `sink`) or popups, so one read exercises them all; redirects and the Refresh header go
 * through the page's own site (`/bounce/<status>?to=…`, `/refresh?to=…`).
 */

export const REDIRECT_STATUSES = [301, 302, 303, 307, 308] as const;

const attr = (text: string): string => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

export const kindsPage = (target: string): string => {
  const k = (kind: string) => `${target}/k/${kind}`;
  const ws = target.replace(/^http/, "ws");
  const redirects = REDIRECT_STATUSES.map(
    (status) =>
      `<iframe src="/bounce/${status}?to=${encodeURIComponent(k(`frame-redirect-${status}`))}"></iframe>
       <script>fetch("/bounce/${status}?to=${encodeURIComponent(k(`fetch-redirect-${status}`))}").catch(function () {});</script>`,
  ).join("\n");
  const srcdoc = `<link rel="stylesheet" href="${k("srcdoc-css")}"><script>fetch("${k("srcdoc-fetch")}").catch(function(){})</script>`;
  const refreshDoc = `<meta http-equiv="refresh" content="0;url=${k("meta-refresh")}">`;
  const workerCode = `fetch("${k("worker-fetch")}").catch(function(){}); try { new WebSocket("${ws}/k/worker-ws"); } catch (e) {}`;
  return `<!doctype html><html><head>
<link rel="stylesheet" href="${k("css")}">
<style>@import url("${k("import")}"); @font-face { font-family: f; src: url("${k("font")}"); } body { font-family: f; }</style>
<link rel="prefetch" href="${k("prefetch")}"><link rel="preload" as="fetch" href="${k("preload")}" crossorigin>
<link rel="preload" as="image" href="${k("preload-image")}"><link rel="modulepreload" href="${k("modulepreload")}">
<link rel="preconnect" href="${target}"><link rel="dns-prefetch" href="${target}">
<script type="speculationrules">${JSON.stringify({
    prefetch: [{ source: "list", urls: [k("speculation-prefetch")] }],
    prerender: [{ source: "list", urls: [k("speculation-prerender")] }],
  })}</script>
<script src="${k("script")}" async></script>
</head><body><h1>Every kind of request</h1>
<img src="${k("img")}"><input type="image" src="${k("input-image")}">
<iframe src="${k("iframe")}"></iframe><iframe srcdoc="${attr(srcdoc)}"></iframe><iframe srcdoc="${attr(refreshDoc)}"></iframe>
<iframe src="/refresh?to=${encodeURIComponent(k("refresh-header"))}"></iframe>
<object data="${k("object")}"></object><embed src="${k("embed")}">
<video src="${k("video")}" poster="${k("poster")}" preload="auto"></video><audio src="${k("audio")}" preload="auto"></audio>
<iframe name="sink"></iframe><iframe name="ping-sink"></iframe>
<form id="post" method="post" action="${k("form-post")}" target="sink"><input name="a" value="b"></form>
<a id="pinger" href="/landing" ping="${k("ping")}" target="ping-sink">go</a>
${redirects}
<script>
  function quietly(f) { try { f(); } catch (e) {} }
  quietly(function () { fetch("${k("fetch")}", { mode: "no-cors" }).catch(function () {}); });
  quietly(function () { var x = new XMLHttpRequest(); x.open("GET", "${k("xhr")}"); x.send(); });
  quietly(function () { navigator.sendBeacon("${k("beacon")}", "x"); });
  quietly(function () { new EventSource("${k("eventsource")}"); });
  quietly(function () { new WebSocket("${ws}/k/websocket"); });
  quietly(function () { new Worker(URL.createObjectURL(new Blob([${JSON.stringify(workerCode)}]))); });
  quietly(function () { new SharedWorker(URL.createObjectURL(new Blob([${JSON.stringify(workerCode)}]))); });
  quietly(function () { new Worker("${k("worker-script")}"); });
  quietly(function () { import("${k("dynamic-import")}").catch(function () {}); });
  quietly(function () { window.open("${k("window-open")}"); });
  quietly(function () { document.getElementById("post").submit(); });
  quietly(function () { document.getElementById("pinger").click(); });
  quietly(function () { new Image().src = "${k("new-image")}"; });
</script></body></html>`;
};

/** A page that opens WebRTC to every STUN/TURN server given (UDP and TCP), names included. */
export const webRtcPage = (iceUrls: ReadonlyArray<string>): string => `<!doctype html><html><body><h1>WebRTC</h1>
<script>
  try {
    var pc = new RTCPeerConnection({ iceServers: [{ urls: ${JSON.stringify(iceUrls)}, username: "u", credential: "p" }] });
    pc.createDataChannel("d");
    pc.createOffer().then(function (offer) { return pc.setLocalDescription(offer); }).catch(function () {});
  } catch (e) {}
</script></body></html>`;
