/**
 * Keys in use: which keyid of an app's key ring devices asked for lately, as the ingester stores it from the edges'
 * check-ins ({@code key_asks}); the control plane reads it before it retires a key.
 */
package dev.updraft.controlplane.keyuse;
