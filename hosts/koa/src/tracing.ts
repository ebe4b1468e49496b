import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization";
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer";
import * as FetchHttpClient from "@effect/platform/FetchHttpClient";
import * as Duration from "effect/Duration";
import * as Layer from "effect/Layer";

/**
 * Where the engine's spans go (run.<phase>, each API request): OpenTelemetry's own variables, read
 * as its exporters read them. OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL) or
 * OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces); OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf (the
 * default) or http/json; OTEL_SERVICE_NAME (default gleaner); OTEL_BSP_SCHEDULE_DELAY, the ms
 * between exports (default 5000). Unset endpoints: no tracing.
 */
export interface TracingConfig {
  readonly url: string;
  readonly protocol: "http/protobuf" | "http/json";
  readonly serviceName: string;
  readonly exportIntervalMs: number;
}

export const readTracing = (env: Record<string, string | undefined>): TracingConfig | undefined => {
  const full = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = full || (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined);
  if (!url) return undefined;
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  return {
    url,
    protocol: env.OTEL_EXPORTER_OTLP_PROTOCOL === "http/json" ? "http/json" : "http/protobuf",
    serviceName: env.OTEL_SERVICE_NAME || "gleaner",
    exportIntervalMs: Number.isFinite(delay) && delay > 0 ? delay : 5_000,
  };
};

/** Effect's OTLP exporter over fetch; spans are batched and sent every `exportIntervalMs`, and once more at close. */
export const tracingLayer = (tracing: TracingConfig | undefined): Layer.Layer<never> =>
  tracing === undefined
    ? Layer.empty
    : OtlpTracer.layer({
        url: tracing.url,
        resource: { serviceName: tracing.serviceName },
        exportInterval: Duration.millis(tracing.exportIntervalMs),
      }).pipe(
        Layer.provide(
          Layer.merge(
            FetchHttpClient.layer,
            tracing.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf,
          ),
        ),
      );
