// The three browser engines the browser tests run in, and how each is launched from Debian's
// packages: Chromium (Debian's `chromium`, driven by playwright-core over CDP), Firefox (Debian's
// `firefox-esr`, driven by playwright-core over WebDriver BiDi) and WebKit, Safari's engine
// (WebKitGTK's MiniBrowser, driven by `WebKitWebDriver` under Xvfb through ./webkit.mjs, a
// Playwright-shaped driver over classic WebDriver). One run of the tests drives one engine, named
// by SESSIONSCOPE_ENGINE (chromium when unset); `npm test` runs them all (tests/run.mjs).
import { chromium, firefox } from "playwright-core";

export const ENGINES = ["chromium", "firefox", "webkit"];

/** The engine this run drives. */
export const ENGINE = process.env.SESSIONSCOPE_ENGINE || "chromium";
if (!ENGINES.includes(ENGINE)) {
  throw new Error(`SESSIONSCOPE_ENGINE=${ENGINE}: the engines are ${ENGINES.join(", ")}`);
}

/** The flags that keep Chromium off the network (see wasm-toolchain.md). */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--enable-precise-memory-info",
  // Extra flags for experiments, e.g. CHROMIUM_FLAGS="--js-flags=--no-wasm-lazy-compilation".
  ...(process.env.CHROMIUM_FLAGS ? process.env.CHROMIUM_FLAGS.split(" ") : []),
];
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const FIREFOX = process.env.FIREFOX || "/usr/bin/firefox-esr";

/**
 * Firefox's preferences that keep it off the network: no update, telemetry, safe browsing,
 * captive-portal or connectivity checks, remote settings or region lookups (this machine reaches
 * only the package registries, and a test may fail on any request that leaves the machine).
 */
const FIREFOX_PREFS = {
  "app.update.enabled": false,
  "app.normandy.enabled": false,
  "browser.safebrowsing.malware.enabled": false,
  "browser.safebrowsing.phishing.enabled": false,
  "browser.safebrowsing.downloads.enabled": false,
  "browser.safebrowsing.blockedURIs.enabled": false,
  "browser.region.network.url": "",
  "browser.region.update.enabled": false,
  "browser.search.update": false,
  "captivedetect.canonicalURL": "",
  "network.captive-portal-service.enabled": false,
  "network.connectivity-service.enabled": false,
  "network.dns.disablePrefetch": true,
  "network.prefetch-next": false,
  "datareporting.healthreport.uploadEnabled": false,
  "datareporting.policy.dataSubmissionEnabled": false,
  "toolkit.telemetry.enabled": false,
  "services.settings.server": "",
  "extensions.update.enabled": false,
  "extensions.getAddons.cache.enabled": false,
  // A dropped download is saved without asking.
  "browser.download.useDownloadDir": true,
  "browser.download.folderList": 2,
  "browser.download.always_ask_before_handling_new_types": false,
};

/**
 * Launches `engine` headless (WebKit under Xvfb, which has no headless mode). Firefox's driver
 * cannot give one context a colour scheme or a time zone of its own (WebDriver BiDi has no such
 * command in Firefox ESR 153): `system` launches a Firefox whose whole system says them instead
 * (`colorScheme`: its content's `prefers-color-scheme`; `timezoneId`: its `TZ`).
 */
export async function launchEngine(engine = ENGINE, system = {}) {
  switch (engine) {
    case "chromium":
      return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    case "firefox": {
      const prefs = { ...FIREFOX_PREFS };
      // 0: dark, 1: light (Firefox's content override of the system's scheme).
      if (system.colorScheme) prefs["layout.css.prefers-color-scheme.content-override"] = system.colorScheme === "dark" ? 0 : 1;
      const env = system.timezoneId ? { ...process.env, TZ: system.timezoneId } : undefined;
      return firefox.launch({ channel: "moz-firefox", executablePath: FIREFOX, headless: true, firefoxUserPrefs: prefs, env });
    }
    case "webkit": {
      const { webkit } = await import("./webkit.mjs");
      return webkit.launch();
    }
  }
  throw new Error(`no engine ${engine}`);
}

/**
 * A browser with a profile of its own in `userDataDir`, as one context (unlike a launched
 * browser's contexts, no incognito window: Chromium installs no app from one).
 */
export async function launchPersistent(userDataDir, engine = ENGINE) {
  const options = { headless: true, viewport: { width: 1280, height: 860 }, colorScheme: "light" };
  switch (engine) {
    case "chromium":
      return chromium.launchPersistentContext(userDataDir, { ...options, executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    case "firefox":
      return firefox.launchPersistentContext(userDataDir, { ...options, channel: "moz-firefox", executablePath: FIREFOX, firefoxUserPrefs: FIREFOX_PREFS });
  }
  throw new Error(`${engine}: no persistent profile through its driver`);
}

/**
 * Whether the engine's driver gives each context the colour scheme and time zone it asks for
 * (else [`launchEngine`]'s `system` does, for a whole browser).
 */
export const EMULATES_PER_CONTEXT = engineEmulates(ENGINE);
function engineEmulates(engine) {
  return engine !== "firefox";
}

/** The engine's version, as its driver reports it: "chromium 156.0.8078.108". */
export function versionOf(browser, engine = ENGINE) {
  return `${engine} ${browser.version()}`;
}
