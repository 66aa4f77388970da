/**
 * The web console: hand-written HTML, CSS and ES modules under {@code src/main/resources/console/},
 * served by the control plane itself at {@code /console/} (no build step, no CDN). The pages call the
 * publisher API under {@code /v1} with the token the user signs in with; serving the files needs no token.
 */
package dev.updraft.controlplane.console;
