package failover
