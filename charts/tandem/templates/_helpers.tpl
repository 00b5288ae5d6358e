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

{{/* namespaceSelector.matchLabels as a label selector, for --namespace-selector. */}}
{{- define "tandem.selector" -}}
{{- $pairs := list -}}
{{- range $k, $v := .Values.namespaceSelector.matchLabels -}}
{{- $pairs = append $pairs (printf "%s=%s" $k $v) -}}
{{- end -}}
{{ join "," $pairs }}
{{- end -}}
