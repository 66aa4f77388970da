/**
 * What every HTTP server of Updraft puts in front of Vert.x: the request-head timeout that closes slowloris
 * connections ({@code --header-timeout}).
 */
package dev.updraft.common.http;
