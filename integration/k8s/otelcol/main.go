// Command otelcol is the OpenTelemetry Collector built from its own Go
// modules with the components a log shipper in a Job uses: the OTLP and
// filelog receivers, the batch processor and the file exporter. It is what
// `otelcol-contrib` is, less the components these tests do not use: a
// test-only program for integration/k8s (build-otelcol.sh), its own module
// so that the collector's dependencies stay out of tandem's.
package main

import (
	"log"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/filelogreceiver"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

// version is the contrib release the components are at (go.mod), set by
// build-otelcol.sh.
var version = "dev"

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol-contrib",
			Description: "OpenTelemetry Collector (tandem's test build)",
			Version:     version,
		},
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory(), envprovider.NewFactory()},
			},
		},
	}
	if err := otelcol.NewCommand(settings).Execute(); err != nil {
		log.Fatal(err)
	}
}

func factories() (otelcol.Factories, error) {
	var f otelcol.Factories
	var errs [3]error
	f.Receivers, errs[0] = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory(), filelogreceiver.NewFactory())
	f.Processors, errs[1] = otelcol.MakeFactoryMap[processor.Factory](batchprocessor.NewFactory())
	f.Exporters, errs[2] = otelcol.MakeFactoryMap[exporter.Factory](fileexporter.NewFactory())
	f.Telemetry = otelconftelemetry.NewFactory()
	for _, err := range errs {
		if err != nil {
			return f, err
		}
	}
	return f, nil
}
