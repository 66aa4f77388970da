/**
 * Recording a sample of device requests as JSON lines for the load module's traffic replay.
 */
package dev.updraft.edge.replay;
