#!/usr/bin/env bash
# Writes the sysfs fixtures of tests/launch/test_portinfo.c into this directory,
# one tree per case, shaped like /sys (README.md says where each value's
# format comes from).  The trees are committed; run this only to change
# them, then commit what it wrote:  tests/data/sysfs/make.sh
set -euo pipefail
cd "$(dirname "$0")"

PCI=devices/pci0000:00/0000:00:02.0/0000:3b:00.0

put() { # file value
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}

# A ConnectX-5-like PCI function at 0000:3b:00.0 behind root port
# 0000:00:02.0, driven by mlx5_core, with netdev rail0.
pci_device() { # root cur_gts cur_width
	local dev=$1/$PCI
	# git keeps no empty directory: the driver's bind file keeps it
	put "$1/bus/pci/drivers/mlx5_core/bind" ""
	mkdir -p "$dev"
	ln -sfn ../../../../bus/pci/drivers/mlx5_core "$dev/driver"
	put "$dev/vendor" 0x15b3
	put "$dev/device" 0x1017
	put "$dev/class" 0x020000
	put "$dev/numa_node" 0
	put "$dev/current_link_speed" "$2 GT/s PCIe"
	put "$dev/current_link_width" "$3"
	put "$dev/max_link_speed" "16.0 GT/s PCIe"
	put "$dev/max_link_width" 16
}

# netdev IF under a device directory (relative to the root); class/net/IF
# links to it as the kernel's does.
netdev() { # root devdir ifname operstate carrier speed
	local dir=$1/$2/net/$3
	mkdir -p "$dir/statistics" "$1/class/net"
	ln -sfn "../../$2/net/$3" "$1/class/net/$3"
	put "$dir/operstate" "$4"
	[ -n "$5" ] && put "$dir/carrier" "$5"
	put "$dir/mtu" 9000
	put "$dir/address" 0c:42:a1:12:34:56
	put "$dir/addr_len" 6
	put "$dir/type" 1
	put "$dir/dev_port" 0
	put "$dir/duplex" full
	put "$dir/speed" "$6"
	local s=$dir/statistics
	for f in tx_errors tx_dropped rx_crc_errors rx_frame_errors rx_fifo_errors \
		rx_over_errors rx_length_errors tx_carrier_errors tx_aborted_errors \
		tx_fifo_errors collisions multicast rx_bytes tx_bytes; do
		put "$s/$f" 0
	done
	put "$s/rx_errors" 3
	put "$s/rx_dropped" 7
	put "$s/rx_missed_errors" 3
	put "$s/rx_packets" 123456789
	put "$s/tx_packets" 987654321
}

pci_netdev() { # case cur_gts cur_width operstate carrier speed
	local root=$1
	rm -rf "$root"
	pci_device "$root" "$2" "$3"
	netdev "$root" "$PCI" rail0 "$4" "$5" "$6"
	ln -sfn ../../../0000:3b:00.0 "$root/$PCI/net/rail0/device"
}

pci_netdev healthy-100g 16.0 16 up 1 100000
pci_netdev negotiated-50g 16.0 16 up 1 50000
pci_netdev pcie-x8 8.0 8 up 1 100000
pci_netdev link-down 16.0 16 down 0 -1

# RoCE: the same port with its OpenFabrics device mlx5_0.
pci_netdev roce 16.0 16 up 1 100000
ib=roce/$PCI/infiniband/mlx5_0
mkdir -p "$ib" roce/class/infiniband
ln -sfn ../../$PCI/infiniband/mlx5_0 roce/class/infiniband/mlx5_0
ln -sfn ../../../0000:3b:00.0 "$ib/device"
put "$ib/fw_ver" 16.35.2000
put "$ib/node_type" "1: CA"
put "$ib/ports/1/state" "4: ACTIVE"
put "$ib/ports/1/phys_state" "5: LinkUp"
put "$ib/ports/1/rate" "100 Gb/sec (4X EDR)"
put "$ib/ports/1/link_layer" Ethernet
put "$ib/ports/1/gids/0" fe80:0000:0000:0000:0e42:a1ff:fe12:3456
put "$ib/ports/1/gid_attrs/ndevs/0" rail0
for f in port_rcv_remote_physical_errors local_link_integrity_errors \
	excessive_buffer_overrun_errors VL15_dropped port_rcv_constraint_errors \
	port_xmit_constraint_errors port_xmit_discards link_error_recovery \
	port_xmit_data port_rcv_data; do
	put "$ib/ports/1/counters/$f" 0
done
put "$ib/ports/1/counters/symbol_error" 17
put "$ib/ports/1/counters/port_rcv_errors" 2
put "$ib/ports/1/counters/link_downed" 1
put "$ib/ports/1/counters/port_xmit_wait" 4096
put "$ib/ports/1/hw_counters/out_of_sequence" 5
put "$ib/ports/1/hw_counters/duplicate_request" 0
put "$ib/ports/1/hw_counters/rnr_nak_retry_err" 0
put "$ib/ports/1/hw_counters/np_cnp_sent" 99
put "$ib/ports/1/hw_counters/lifespan" 10

# Virtual: a veth (no device; its made-up speed 10000) and one that is
# administratively down, whose carrier cannot be read (no file here; the
# kernel's read fails with EINVAL); Soft-RoCE rxe0 over veth0, which has no
# device/net and names its netdev in gid_attrs/ndevs/0.
rm -rf veth
netdev veth devices/virtual veth0 up 1 10000
netdev veth devices/virtual veth1 down '' 10000
rxe=veth/devices/virtual/infiniband/rxe0
mkdir -p "$rxe" veth/class/infiniband
ln -sfn ../../devices/virtual/infiniband/rxe0 veth/class/infiniband/rxe0
put "$rxe/fw_ver" 0.0.0
put "$rxe/ports/1/state" "4: ACTIVE"
put "$rxe/ports/1/rate" "10 Gb/sec (1X QDR)"
put "$rxe/ports/1/link_layer" Ethernet
put "$rxe/ports/1/gids/0" fe80:0000:0000:0000:0000:0000:0000:0000
put "$rxe/ports/1/gid_attrs/ndevs/0" veth0
for f in duplicate_request out_of_sequence rcvd_seq_err retry_exceeded_err \
	completer_retry_err send_err link_downed rcvd_rnr_err sent_pkts rcvd_pkts; do
	put "$rxe/ports/1/hw_counters/$f" 0
done
put "$rxe/ports/1/hw_counters/retry_exceeded_err" 2
