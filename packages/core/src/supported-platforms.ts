/**
 * Where the prebuilt addons of the published packages run: the platforms they are built for and
 * the oldest C and C++ runtime they need (tooling/scripts/check-glibc.mjs fails when a prebuild
 * needs a newer one). Elsewhere the addons build from source (see loadAddon's error).
 */
export const supportedPlatforms = {
  /** node-gyp-build's `prebuilds/<platform>-<arch>/` folders, each with a glibc build. */
  prebuilds: ['linux-x64'],
  /** The highest `GLIBC_` symbol version a prebuild may need (glibc 2.34: Debian 12, Ubuntu 22.04, RHEL 9). */
  glibc: '2.34',
  /** The highest `GLIBCXX_` symbol version a prebuild may need (libstdc++ of GCC 12). */
  glibcxx: '3.4.30',
  /** The oldest Node.js (`engines.node`), and the Node-API version the addons are built for. */
  node: '20.19',
  nodeApi: 8,
} as const;
