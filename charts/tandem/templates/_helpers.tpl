{{/* The one label every object carries, as in examples/webhook/. */}}
{{- define "tandem.labels" -}}
app.kubernetes.io/name: tandem-webhook
{{- end -}}

{{- define "tandem.namespace" -}}
{{ .Values.namespace.name }}
{{- end -}}

{{/* The tag defaults to the chart's appVersion: a chart installs its own release. */}}
{{- define "tandem.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* "true" when the webhook makes its own certificate (no cert-manager). */}}
{{- define "tandem.bootstrap" -}}
{{- if eq .Values.certificates.source "bootstrap" }}true{{ end -}}
{{- end -}}

{{/* namespaceSelector.matchLabels, or the default when empty: labels
given replace the default, where Helm would merge them into it. */}}
{{- define "tandem.matchLabels" -}}
{{- .Values.namespaceSelector.matchLabels | default (dict "tandem.sh/inject" "enabled") | toYaml -}}
{{- end -}}

{{/* tandem.matchLabels as a label selector, for --namespace-selector. */}}
{{- define "tandem.selector" -}}
{{- $pairs := list -}}
{{- range $k, $v := include "tandem.matchLabels" . | fromYaml -}}
{{- $pairs = append $pairs (printf "%s=%s" $k $v) -}}
{{- end -}}
{{ join "," $pairs }}
{{- end -}}

{{/* The variables the chart sets, each from the value that says it:
extraEnv may not set them again (the last of two would win, silently). */}}
{{- define "tandem.checkExtraEnv" -}}
{{- $own := dict
  "TANDEMCTL_NAMESPACE" "namespace.name (the pod's own namespace)"
  "TANDEMCTL_BOOTSTRAP_SECRET" "certificates.source"
  "TANDEMCTL_CERT_DIR" "certificates.source"
  "TANDEMCTL_LOOKUP_TIMEOUT" "lookupTimeout"
  "TANDEMCTL_MODE" "mode"
  "TANDEMCTL_INSTALL" "install"
  "TANDEMCTL_PRESETS" "presets"
  "TANDEMCTL_NAMESPACE_SELECTOR" "namespaceSelector.matchLabels"
  "TANDEMCTL_READ_PULL_SECRETS" "readPullSecrets"
  "TANDEMCTL_SIDECAR_IMAGE" "sidecarImages"
  "TANDEMCTL_METRICS_LISTEN" "(the chart's metrics port, 9090)" -}}
{{- $seen := dict -}}
{{- range .Values.extraEnv -}}
{{- if hasKey $own .name -}}
{{- fail (printf "extraEnv: %s is set by the chart from %s; set that value instead" .name (get $own .name)) -}}
{{- end -}}
{{- if hasKey $seen .name -}}
{{- fail (printf "extraEnv: %s is given twice; expected each variable once" .name) -}}
{{- end -}}
{{- $_ := set $seen .name true -}}
{{- end -}}
{{- end -}}
